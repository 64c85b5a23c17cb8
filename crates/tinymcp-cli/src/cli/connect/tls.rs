//! TLS for `https://` URLs (feature `https`): rustls with ring, the certificate always
//! verified against Mozilla's roots (webpki-roots, built in: a `FROM scratch` image needs no CA
//! files) plus the certificates of `--ca-file`, for the URL's host. No async runtime: the
//! handshake is driven by hand on the blocking socket, each read bounded by what is left of
//! the connection's deadline, then the session is a `Read + Write` stream over the socket.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConnection, RootCertStore};
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use rustls::ClientConfig;

/// A TLS session over a stream.
pub type Stream<S> = rustls::StreamOwned<ClientConnection, S>;

/// The client configuration: ring, TLS 1.2 and 1.3, Mozilla's roots and those of `ca_file`.
pub fn config(ca_file: Option<&str>) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    if let Some(path) = ca_file {
        let bad = |why: &dyn std::fmt::Display| format!("--ca-file {path}: {why}");
        let mut added = 0;
        for cert in CertificateDer::pem_file_iter(path).map_err(|e| bad(&e))? {
            let cert = cert.map_err(|e| bad(&format!("not a PEM file ({e})")))?;
            roots.add(cert).map_err(|e| bad(&format!("a certificate that cannot be a root ({e})")))?;
            added += 1;
        }
        if added == 0 {
            return Err(bad(&"no certificate in it (expected PEM: -----BEGIN CERTIFICATE-----)"));
        }
        log::debug!("--ca-file {path}: {added} certificate(s) added to the roots");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    // Said in the handshake, so a server that also speaks HTTP/2 does not pick it for us.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The TLS handshake with `host` over `sock`, finished before `deadline`: `set_timeout` bounds
/// each read by what is left (a server that stalls, or trickles bytes, fails it in time). A
/// certificate that does not verify is an error that says so and what to do.
pub fn handshake<S: Read + Write>(
    config: &Arc<ClientConfig>,
    host: &str,
    mut sock: S,
    deadline: Instant,
    set_timeout: impl Fn(&S, Duration) -> io::Result<()>,
) -> io::Result<Stream<S>> {
    let name = ServerName::try_from(host.to_owned())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, format!("{host:?} is not a TLS server name")))?;
    let mut conn = ClientConnection::new(Arc::clone(config), name).map_err(io::Error::other)?;
    let late = || {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!("the TLS handshake with {host} did not finish in time (see --connect-secs)"),
        )
    };
    while conn.is_handshaking() {
        if conn.wants_write() {
            conn.write_tls(&mut sock)?;
            continue;
        }
        let left = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()).ok_or_else(late)?;
        set_timeout(&sock, left)?;
        match conn.read_tls(&mut sock) {
            Ok(0) => {
                let why = format!("{host} closed the connection during the TLS handshake");
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, why));
            }
            Ok(_) => {}
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => return Err(late()),
            Err(e) => return Err(e),
        }
        if let Err(e) = conn.process_new_packets() {
            // The alert that says why goes to the server, as far as it can.
            let _ = conn.write_tls(&mut sock);
            return Err(refused(host, e));
        }
    }
    while conn.wants_write() {
        conn.write_tls(&mut sock)?;
    }
    Ok(rustls::StreamOwned::new(conn, sock))
}

/// What a failed handshake means, in words: above all a certificate that did not verify.
fn refused(host: &str, e: rustls::Error) -> io::Error {
    use rustls::CertificateError;
    let why = match &e {
        rustls::Error::InvalidCertificate(cert) => {
            let hint = match cert {
                CertificateError::UnknownIssuer | CertificateError::BadSignature => {
                    "; if the server uses a private CA (or a self-signed certificate), pass its certificate with --ca-file PEM"
                }
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                    "; connect with the name the certificate was issued for"
                }
                // webpki's own error, only in words: a self-signed CA certificate (what
                // `openssl req -x509` makes) served as the server's own.
                CertificateError::Other(other) if format!("{other:?}").contains("CaUsedAsEndEntity") => {
                    "; the server presents a CA certificate (CA:TRUE, as `openssl req -x509` makes) as its own: \
                     give it a certificate signed by that CA, and pass the CA with --ca-file PEM"
                }
                _ => "",
            };
            format!("the server's certificate did not verify for {host}: {e}{hint}")
        }
        _ => format!("the TLS handshake with {host} failed: {e}"),
    };
    io::Error::new(io::ErrorKind::InvalidData, why)
}
