//! The server's public HTTP API as `kc` calls it: JSON in and out, the bearer token of the
//! login held for the server (renewed before it expires, with the API's rotation) or
//! `KC_TOKEN`, and every refusal read as the problem document it is. Nothing of the server's
//! own code is used: what `kc` knows of the API is what openapi/openapi.json says.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::config::{Config, Login};
use crate::failure::Failure;

/// Renew the access token when it has less than this left (seconds).
const RENEW_BEFORE: i64 = 30;

/// How long one request may take before `kc` says the server did not answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a stream may stay open (it is watched for silence, `wait.rs`).
const STREAM_TIMEOUT: Duration = Duration::from_secs(7 * 86_400);

/// A connection to one server.
pub struct Api {
    http: reqwest::Client,
    config: Config,
    /// The name the server has in the config.
    name: String,
    /// Its base URL.
    pub base: String,
    /// `KC_TOKEN`, which wins over a login.
    env_token: Option<String>,
    /// `KC_TRACE`: a file every request is noted in (a line of JSON each: its method, path,
    /// and the names of its query parameters and headers; never a value, so no token).
    trace: Option<std::path::PathBuf>,
}

/// An answer read whole: its status, content type and body.
type Answer = (StatusCode, String, Vec<u8>);

/// A request beyond its method and path.
#[derive(Default)]
pub struct Call<'a> {
    /// The JSON body.
    pub body: Option<Value>,
    /// The query.
    pub query: Vec<(&'a str, String)>,
    /// More headers.
    pub headers: Vec<(&'a str, String)>,
    /// Send no token.
    pub anonymous: bool,
}

impl Api {
    /// The server named `name` in the config (`url` replaces its address).
    pub fn open(name: &str, url: Option<&str>) -> Result<Api, Failure> {
        let mut config = Config::load()?;
        let base = config.server(name, url).url.clone();
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .user_agent(concat!("kc/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| Failure::Local(error.to_string()))?;
        let env_token = std::env::var("KC_TOKEN")
            .ok()
            .filter(|token| !token.is_empty());
        Ok(Api {
            http,
            config,
            name: name.to_owned(),
            base,
            env_token,
            trace: std::env::var_os("KC_TRACE").map(Into::into),
        })
    }

    /// Whether `KC_TOKEN` is used (then no login is asked for).
    pub fn has_env_token(&self) -> bool {
        self.env_token.is_some()
    }

    /// The login held for this server.
    pub fn login(&self) -> Option<&Login> {
        self.config.servers.get(&self.name)?.login.as_ref()
    }

    /// Keeps `login` (or forgets the one held, with `None`) and saves the config.
    pub fn keep_login(&mut self, login: Option<Login>) -> Result<(), Failure> {
        self.config.server(&self.name, None).login = login;
        self.config.save()
    }

    /// `GET path`.
    pub async fn get(&mut self, path: &str, call: Call<'_>) -> Result<Value, Failure> {
        self.call(Method::GET, path, call).await
    }

    /// `POST path`.
    pub async fn post(&mut self, path: &str, call: Call<'_>) -> Result<Value, Failure> {
        self.call(Method::POST, path, call).await
    }

    /// A stream of Server-Sent Events (`query` carries its ticket), open for as long as the
    /// server keeps it: the response, its body still to read.
    pub async fn stream(
        &mut self,
        path: &str,
        query: Vec<(&str, String)>,
    ) -> Result<reqwest::Response, Failure> {
        let names: Vec<&str> = query.iter().map(|(name, _)| *name).collect();
        self.note(&Method::GET, path, &names, &["accept"]);
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .query(&query)
            .header("accept", "text/event-stream")
            .timeout(STREAM_TIMEOUT)
            .send()
            .await
            .map_err(|error| self.unreachable(&error))?;
        if response.status().is_success() {
            return Ok(response);
        }
        let answer = self.taken(response).await?;
        Err(self.refusal(answer))
    }

    /// One operation: its JSON answer (`null` for `204`), or the refusal.
    pub async fn call(
        &mut self,
        method: Method,
        path: &str,
        call: Call<'_>,
    ) -> Result<Value, Failure> {
        let token = if call.anonymous {
            None
        } else {
            Some(self.token().await?)
        };
        let answer = self.send(&method, path, &call, token.as_deref()).await?;
        // An access token revoked or expired in between: renew once and ask again.
        if answer.0 == StatusCode::UNAUTHORIZED
            && token.is_some()
            && self.env_token.is_none()
            && self.renew().await.is_ok()
        {
            let token = self.token().await?;
            let again = self.send(&method, path, &call, Some(&token)).await?;
            return self.read(again);
        }
        self.read(answer)
    }

    async fn send(
        &self,
        method: &Method,
        path: &str,
        call: &Call<'_>,
        token: Option<&str>,
    ) -> Result<Answer, Failure> {
        let query: Vec<&str> = call.query.iter().map(|(name, _)| *name).collect();
        let mut headers: Vec<&str> = call.headers.iter().map(|(name, _)| *name).collect();
        headers.push("accept");
        self.note(method, path, &query, &headers);
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .header("accept", "application/json, application/problem+json");
        if !call.query.is_empty() {
            request = request.query(&call.query);
        }
        for (name, value) in &call.headers {
            request = request.header(*name, value);
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = &call.body {
            request = request
                .header("content-type", "application/json")
                .body(serde_json::to_vec(body).expect("JSON serialises"));
        }
        let response = request
            .send()
            .await
            .map_err(|error| self.unreachable(&error))?;
        self.taken(response).await
    }

    /// Notes a request in the `KC_TRACE` file, if one is named.
    fn note(&self, method: &Method, path: &str, query: &[&str], headers: &[&str]) {
        let Some(file) = &self.trace else { return };
        let line =
            json!({"method": method.as_str(), "path": path, "query": query, "headers": headers});
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .and_then(|mut file| {
                std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes())
            });
        if let Err(error) = written {
            eprintln!("kc: KC_TRACE {}: {error}", file.display());
        }
    }

    /// An answer read whole: its status, content type and body.
    async fn taken(&self, response: reqwest::Response) -> Result<Answer, Failure> {
        let status = response.status();
        let kind = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let bytes = response
            .bytes()
            .await
            .map_err(|error| self.unreachable(&error))?;
        Ok((status, kind, bytes.to_vec()))
    }

    /// A whole answer as the operation's JSON (`null` for an empty body), or its refusal.
    fn read(&self, answer: Answer) -> Result<Value, Failure> {
        let (status, _, bytes) = &answer;
        if !status.is_success() {
            return Err(self.refusal(answer));
        }
        if bytes.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(bytes).map_err(|error| Failure::Unreachable {
            server: self.base.clone(),
            cause: format!("its answer is not JSON: {error}"),
        })
    }

    /// A refusal as its problem document says it, or, without one, a server that is not the
    /// API's.
    fn refusal(&self, (status, kind, bytes): Answer) -> Failure {
        if kind.contains("json")
            && let Ok(problem) = serde_json::from_slice::<Value>(&bytes)
            && let Some(code) = problem["code"].as_str()
        {
            return Failure::Refused {
                code: code.to_owned(),
                detail: problem["detail"].as_str().unwrap_or("").to_owned(),
            };
        }
        Failure::Unreachable {
            server: self.base.clone(),
            cause: format!("it answered {status} without a problem document"),
        }
    }

    fn unreachable(&self, error: &reqwest::Error) -> Failure {
        let cause = if error.is_timeout() {
            "no answer in time".to_owned()
        } else if error.is_connect() {
            "connection refused or no route".to_owned()
        } else {
            error.to_string()
        };
        Failure::Unreachable {
            server: self.base.clone(),
            cause,
        }
    }

    /// The bearer token: `KC_TOKEN`, else the login's access token, renewed first when it is
    /// about to expire.
    async fn token(&mut self) -> Result<String, Failure> {
        if let Some(token) = &self.env_token {
            return Ok(token.clone());
        }
        let Some(login) = self.login() else {
            return Err(Failure::NotLoggedIn {
                server: self.base.clone(),
            });
        };
        if login.access_expires_at - RENEW_BEFORE <= now() {
            self.renew().await?;
        }
        Ok(self.login().expect("renewed").access_token.clone())
    }

    /// Renews the login's tokens (the refresh token is used once; the new pair is kept).
    async fn renew(&mut self) -> Result<(), Failure> {
        let Some(login) = self.login().cloned() else {
            return Err(Failure::NotLoggedIn {
                server: self.base.clone(),
            });
        };
        let call = Call {
            body: Some(json!({"refresh_token": login.refresh_token})),
            anonymous: true,
            ..Call::default()
        };
        let answer = self
            .send(&Method::POST, "/v1/auth/refresh", &call, None)
            .await?;
        match self.read(answer) {
            Ok(pair) => self.keep_login(Some(login_from(&login.username, &pair)?)),
            Err(Failure::Refused { .. }) => {
                // Revoked, reused or expired: the login is gone; say so rather than retry.
                self.keep_login(None)?;
                Err(Failure::Refused {
                    code: "login_expired".into(),
                    detail: format!(
                        "the login of {} on {} has expired or was revoked: run `kc login {}`",
                        login.username, self.base, login.username
                    ),
                })
            }
            Err(other) => Err(other),
        }
    }
}

/// A login from a token pair (`TokenPair`).
pub fn login_from(username: &str, pair: &Value) -> Result<Login, Failure> {
    let text = |field: &str| {
        pair[field]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| Failure::Local(format!("the server's token pair lacks `{field}`")))
    };
    Ok(Login {
        username: username.to_owned(),
        access_token: text("access_token")?,
        access_expires_at: now() + pair["expires_in"].as_i64().unwrap_or(0),
        refresh_token: text("refresh_token")?,
    })
}

/// An RFC 3339 time (a deadline) in Unix seconds; `None` when it does not parse.
pub fn unix_seconds(rfc3339: &str) -> Option<i64> {
    time::OffsetDateTime::parse(rfc3339, &time::format_description::well_known::Rfc3339)
        .ok()
        .map(time::OffsetDateTime::unix_timestamp)
}

/// Now, in Unix seconds.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}
