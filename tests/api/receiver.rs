//! A real webhook receiver in the test process (an HTTP server on 127.0.0.1), and the
//! signature check of Standard Webhooks written here from RFC 2104 and SHA-256 alone, without
//! the server's signing code or its HMAC crate.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::dev::ServerHandle;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One request the receiver got.
#[derive(Clone, Debug)]
pub struct Received {
    /// `webhook-id`.
    pub id: String,
    /// `webhook-timestamp`.
    pub timestamp: String,
    /// `webhook-signature`.
    pub signature: String,
    /// `content-type`.
    pub content_type: String,
    /// The body as sent.
    pub body: String,
}

impl Received {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }
}

/// How the receiver answers.
#[derive(Clone, Debug)]
pub enum Answer {
    /// This status at once.
    Status(u16),
    /// The first request: no answer for this long, then 204; the others 204 at once.
    HoldFirst(Duration),
    /// Every request: no answer for this long, then 204.
    Hold(Duration),
    /// A redirect to this location.
    Redirect(String),
}

#[derive(Debug)]
struct State {
    received: Mutex<Vec<Received>>,
    answer: Mutex<Answer>,
    held: AtomicUsize,
}

/// A receiver listening on 127.0.0.1.
pub struct Receiver {
    /// Where it listens.
    pub address: SocketAddr,
    state: Arc<State>,
    handle: ServerHandle,
}

impl Receiver {
    /// A receiver answering 204, on a free port.
    pub async fn start() -> Receiver {
        Receiver::on(free_port(), Answer::Status(204)).await
    }

    /// A receiver on this port answering so.
    pub async fn on(port: u16, answer: Answer) -> Receiver {
        let state = Arc::new(State {
            received: Mutex::new(Vec::new()),
            answer: Mutex::new(answer),
            held: AtomicUsize::new(0),
        });
        Receiver::serve(port, state).await
    }

    async fn serve(port: u16, state: Arc<State>) -> Receiver {
        let data = web::Data::from(state.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(web::PayloadConfig::new(1 << 20))
                .default_service(web::to(receive))
        })
        .workers(1)
        .disable_signals()
        .bind(("127.0.0.1", port))
        .expect("the receiver binds")
        .run();
        let handle = server.handle();
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        tokio::spawn(server);
        Receiver {
            address,
            state,
            handle,
        }
    }

    /// The URL of its `/hook` path.
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.address)
    }

    /// Everything received so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.state.received.lock().unwrap().clone()
    }

    /// Answers so from now on.
    pub fn answer(&self, answer: Answer) {
        *self.state.answer.lock().unwrap() = answer;
    }

    /// Waits until `done` holds for what was received (at most `within`).
    pub async fn wait_for(&self, within: Duration, done: impl Fn(&[Received]) -> bool) {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if done(&self.received()) {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the receiver still waits: {:?}",
                self.received()
                    .iter()
                    .map(|received| received.id.clone())
                    .collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let handle = self.handle.clone();
        tokio::spawn(async move { handle.stop(false).await });
    }
}

async fn receive(request: HttpRequest, body: web::Bytes, state: web::Data<State>) -> HttpResponse {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    state.received.lock().unwrap().push(Received {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        content_type: header("content-type"),
        body: String::from_utf8(body.to_vec()).expect("a UTF-8 body"),
    });
    let answer = state.answer.lock().unwrap().clone();
    match answer {
        Answer::Status(status) => {
            HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap()).finish()
        }
        Answer::HoldFirst(hold) => {
            if state.held.fetch_add(1, Ordering::SeqCst) == 0 {
                tokio::time::sleep(hold).await;
            }
            HttpResponse::NoContent().finish()
        }
        Answer::Hold(hold) => {
            tokio::time::sleep(hold).await;
            HttpResponse::NoContent().finish()
        }
        Answer::Redirect(location) => HttpResponse::Found()
            .insert_header(("Location", location))
            .finish(),
    }
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A listener that accepts connections and never answers; counts them.
pub struct Silent {
    /// Where it listens.
    pub address: SocketAddr,
    accepted: Arc<AtomicUsize>,
}

impl Silent {
    /// Listens on a free port.
    pub async fn start() -> Silent {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = accepted.clone();
        tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                open.push(socket);
            }
        });
        Silent { address, accepted }
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

/// Whether a request carries a valid Standard Webhooks signature for `secret` (`whsec_…`):
/// HMAC-SHA256 over `{id}.{timestamp}.{body}`, written out from RFC 2104.
pub fn signed_by(secret: &str, received: &Received) -> bool {
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").expect("a whsec_ secret"))
        .expect("a base64 secret");
    let message = format!("{}.{}.{}", received.id, received.timestamp, received.body);
    let expected = format!(
        "v1,{}",
        STANDARD.encode(hmac_sha256(&key, message.as_bytes()))
    );
    received
        .signature
        .split(' ')
        .any(|signature| signature == expected)
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let inner_key: Vec<u8> = block.iter().map(|byte| byte ^ 0x36).collect();
    let outer_key: Vec<u8> = block.iter().map(|byte| byte ^ 0x5c).collect();
    let inner = Sha256::new()
        .chain_update(&inner_key)
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(&outer_key)
        .chain_update(inner)
        .finalize()
        .into()
}

#[test]
fn the_hand_written_hmac_matches_rfc_4231() {
    // RFC 4231, test case 2.
    let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
    assert_eq!(
        hex::encode(mac),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    // The Standard Webhooks test vector.
    let received = Received {
        id: "msg_p5jXN8AQM9LWM0D4loKWxJek".into(),
        timestamp: "1614265330".into(),
        signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=".into(),
        content_type: "application/json".into(),
        body: r#"{"test": 2432232314}"#.into(),
    };
    assert!(signed_by(
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        &received
    ));
}
