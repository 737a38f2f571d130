//! A TCP proxy in front of a server that the test can make misbehave the way networks and
//! restarts do: cut every connection it carries, refuse new ones for a while, point at
//! another server process (a restart at the same address), or let one request through and
//! drop its answer (the server did the work; the client never heard).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The proxy; dropped, it stops accepting.
pub struct CuttingProxy {
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    state: Arc<Mutex<State>>,
    cuts: watch::Sender<u64>,
    accepting: tokio::task::JoinHandle<()>,
}

struct State {
    /// Where connections go (`host:port`).
    upstream: String,
    /// New connections are closed at once.
    refusing: bool,
    /// The next request whose first bytes hold this has its answer dropped.
    drop_answer_of: Option<String>,
}

impl CuttingProxy {
    /// A proxy to `upstream` (`http://127.0.0.1:PORT`).
    pub async fn start(upstream: &str) -> CuttingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State {
            upstream: host_port(upstream),
            refusing: false,
            drop_answer_of: None,
        }));
        let (cuts, _) = watch::channel(0);
        let accepting = tokio::spawn(accept(listener, state.clone(), cuts.clone()));
        CuttingProxy {
            address,
            state,
            cuts,
            accepting,
        }
    }

    /// Cuts every connection carried now.
    pub fn cut_all(&self) {
        self.cuts.send_modify(|generation| *generation += 1);
    }

    /// New connections closed at once (`true`), or carried again.
    pub fn refuse(&self, refusing: bool) {
        self.state.lock().unwrap().refusing = refusing;
    }

    /// New connections go to `upstream` from now on.
    pub fn point_at(&self, upstream: &str) {
        self.state.lock().unwrap().upstream = host_port(upstream);
    }

    /// The next request whose first bytes hold `marker` (`POST /v1/matches/…/moves`) reaches
    /// the server, and its answer is dropped with the connection.
    pub fn drop_answer_of(&self, marker: &str) {
        self.state.lock().unwrap().drop_answer_of = Some(marker.to_owned());
    }

    /// Whether that answer was dropped yet.
    pub fn dropped_an_answer(&self) -> bool {
        self.state.lock().unwrap().drop_answer_of.is_none()
    }
}

impl Drop for CuttingProxy {
    fn drop(&mut self) {
        self.accepting.abort();
        self.cut_all();
    }
}

fn host_port(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned()
}

async fn accept(listener: TcpListener, state: Arc<Mutex<State>>, cuts: watch::Sender<u64>) {
    while let Ok((client, _)) = listener.accept().await {
        let (refusing, upstream) = {
            let state = state.lock().unwrap();
            (state.refusing, state.upstream.clone())
        };
        if refusing {
            drop(client);
            continue;
        }
        let Ok(server) = TcpStream::connect(&upstream).await else {
            continue;
        };
        tokio::spawn(carry(client, server, state.clone(), cuts.subscribe()));
    }
}

/// Carries one connection both ways until either side closes or the test cuts it.
async fn carry(
    client: TcpStream,
    server: TcpStream,
    state: Arc<Mutex<State>>,
    mut cut: watch::Receiver<u64>,
) {
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_server, mut to_server) = server.into_split();
    let drop_next_answer = AtomicBool::new(false);
    let up = async {
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            let read = from_client.read(&mut buffer).await.unwrap_or(0);
            if read == 0 {
                return;
            }
            {
                let mut state = state.lock().unwrap();
                let text = String::from_utf8_lossy(&buffer[..read]);
                if let Some(marker) = &state.drop_answer_of
                    && text.contains(marker.as_str())
                {
                    state.drop_answer_of = None;
                    drop_next_answer.store(true, Ordering::SeqCst);
                }
            }
            if to_server.write_all(&buffer[..read]).await.is_err() {
                return;
            }
        }
    };
    let down = async {
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            let read = from_server.read(&mut buffer).await.unwrap_or(0);
            if read == 0 || drop_next_answer.load(Ordering::SeqCst) {
                return;
            }
            if to_client.write_all(&buffer[..read]).await.is_err() {
                return;
            }
        }
    };
    tokio::select! {
        () = up => {}
        () = down => {}
        _ = cut.changed() => {}
    }
}
