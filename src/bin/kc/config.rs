//! Where `kc` keeps its servers and the tokens it holds for each: one JSON file in the user's
//! config directory (`$KC_CONFIG`, else `$XDG_CONFIG_HOME/kc/config.json`, else
//! `~/.config/kc/config.json`), readable by its owner only (mode 0600), written whole through a
//! file beside it so that a crash never leaves half a file. Tokens are never printed.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::failure::Failure;

/// The server `kc` talks to when none is named.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:8080";

/// Every server `kc` knows, by the name given with `--server-name` (`default` otherwise).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Config {
    /// The servers, by name.
    #[serde(default)]
    pub servers: BTreeMap<String, Server>,
}

/// One server and the login held for it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Server {
    /// Its base URL.
    pub url: String,
    /// Who is logged in, if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<Login>,
}

/// The tokens of a login (`POST /v1/auth/login`), renewed by `POST /v1/auth/refresh`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Login {
    /// The account's name.
    pub username: String,
    /// The access token.
    pub access_token: String,
    /// When it expires (Unix seconds).
    pub access_expires_at: i64,
    /// The refresh token (used once: each refresh answers a new one).
    pub refresh_token: String,
}

impl Config {
    /// The config file's path.
    pub fn path() -> Result<PathBuf, Failure> {
        if let Some(path) = std::env::var_os("KC_CONFIG") {
            return Ok(PathBuf::from(path));
        }
        let base = match std::env::var_os("XDG_CONFIG_HOME") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => {
                let home = std::env::var_os("HOME").ok_or_else(|| {
                    Failure::Local("neither XDG_CONFIG_HOME nor HOME is set: set KC_CONFIG".into())
                })?;
                PathBuf::from(home).join(".config")
            }
        };
        Ok(base.join("kc").join("config.json"))
    }

    /// The config as saved, or an empty one when there is none yet.
    pub fn load() -> Result<Config, Failure> {
        let path = Config::path()?;
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| {
                Failure::Local(format!("{} cannot be read: {error}", path.display()))
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(error) => Err(Failure::Local(format!("{}: {error}", path.display()))),
        }
    }

    /// Writes the config whole, owner-only, replacing the old file in one rename.
    pub fn save(&self) -> Result<(), Failure> {
        let path = Config::path()?;
        let local = |error: std::io::Error| Failure::Local(format!("{}: {error}", path.display()));
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(local)?;
        }
        let partial = path.with_extension("json.partial");
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&partial)
            .map_err(local)?;
        // A file left by an older kc may have been created with looser bits.
        file.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(local)?;
        let bytes = serde_json::to_vec_pretty(self).expect("the config serialises");
        file.write_all(&bytes).map_err(local)?;
        file.sync_all().map_err(local)?;
        fs::rename(&partial, &path).map_err(local)
    }

    /// The server named `name`, with `url` if one is given (a new server, or a new address).
    pub fn server(&mut self, name: &str, url: Option<&str>) -> &mut Server {
        let server = self
            .servers
            .entry(name.to_owned())
            .or_insert_with(|| Server {
                url: DEFAULT_SERVER.to_owned(),
                login: None,
            });
        if let Some(url) = url
            && server.url != url.trim_end_matches('/')
        {
            server.url = url.trim_end_matches('/').to_owned();
            // Tokens are a server's own: a new address starts logged out.
            server.login = None;
        }
        server
    }
}
