//! The service-account token issuer's keys: the signing key
//! (`--service-account-signing-key-file`, or an ECDSA P-256 key generated at start)
//! and the keys tokens are verified with (the signing key's public half and
//! `--service-account-key-file`), each with the key id kube-apiserver gives it
//! (base64url of the SHA-256 of its PKIX form) and its JWK for `/openid/v1/jwks`.
//! Signing and verification use ring, already in the tree through rustls.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair, RsaKeyPair};
use rustls_pemfile::Item;
use serde_json::{Value, json};

use super::AuthConfig;
use crate::auth::ConfigError;

/// A JWS algorithm this issuer signs or verifies with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// ECDSA P-256 with SHA-256.
    Es256,
}

impl Algorithm {
    /// The JWS `alg` name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Rs256 => "RS256",
            Algorithm::Es256 => "ES256",
        }
    }
}

/// A key tokens are verified with.
pub struct VerifyKey {
    pub kid: String,
    pub alg: Algorithm,
    /// RSAPublicKey DER (RSA) or the uncompressed point (ECDSA).
    public: Vec<u8>,
    pub jwk: Value,
}

impl VerifyKey {
    /// Whether `signature` signs `message` with this key.
    pub fn verifies(&self, message: &[u8], sig: &[u8]) -> bool {
        let alg: &dyn signature::VerificationAlgorithm = match self.alg {
            Algorithm::Rs256 => &signature::RSA_PKCS1_2048_8192_SHA256,
            Algorithm::Es256 => &signature::ECDSA_P256_SHA256_FIXED,
        };
        signature::UnparsedPublicKey::new(alg, &self.public)
            .verify(message, sig)
            .is_ok()
    }
}

enum Signer {
    Rsa(RsaKeyPair),
    Ec(EcdsaKeyPair),
}

/// The service-account token issuer of a server.
pub struct Issuer {
    /// `iss` of the tokens issued, and the only one accepted.
    pub issuer: String,
    /// The audiences a token must name one of (`--api-audiences`, default the issuer).
    pub audiences: Vec<String>,
    signer: Signer,
    /// The signing key's id and algorithm.
    pub signing: (String, Algorithm),
    /// Every key tokens are verified with (the signing key first).
    pub keys: Vec<VerifyKey>,
    rng: SystemRandom,
}

fn der_len(len: usize, out: &mut Vec<u8>) {
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
}

fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    der_len(content.len(), &mut out);
    out.extend_from_slice(content);
    out
}

const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];

/// The PKIX (SubjectPublicKeyInfo) DER of a public key.
fn pkix(alg: Algorithm, public: &[u8]) -> Vec<u8> {
    let algorithm = match alg {
        Algorithm::Rs256 => [der(0x06, OID_RSA), der(0x05, &[])].concat(),
        Algorithm::Es256 => [der(0x06, OID_EC), der(0x06, OID_P256)].concat(),
    };
    let mut bits = vec![0u8];
    bits.extend_from_slice(public);
    der(0x30, &[der(0x30, &algorithm), der(0x03, &bits)].concat())
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Reads an RSAPublicKey DER's modulus and exponent (two INTEGERs in a SEQUENCE).
fn rsa_components(der: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    fn item(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
        let tag = *input.first()?;
        let first = *input.get(1)? as usize;
        let (len, skip) = if first < 0x80 {
            (first, 2)
        } else {
            let n = first & 0x7f;
            let bytes = input.get(2..2 + n)?;
            (
                bytes.iter().fold(0usize, |acc, b| (acc << 8) | *b as usize),
                2 + n,
            )
        };
        let content = input.get(skip..skip + len)?;
        Some((tag, content, &input[skip + len..]))
    }
    let (0x30, seq, _) = item(der)? else {
        return None;
    };
    let (0x02, n, rest) = item(seq)? else {
        return None;
    };
    let (0x02, e, _) = item(rest)? else {
        return None;
    };
    let strip = |v: &[u8]| {
        v.iter()
            .skip_while(|b| **b == 0)
            .copied()
            .collect::<Vec<u8>>()
    };
    Some((strip(n), strip(e)))
}

fn verify_key(alg: Algorithm, public: Vec<u8>) -> Option<VerifyKey> {
    let kid = b64(ring::digest::digest(&ring::digest::SHA256, &pkix(alg, &public)).as_ref());
    let jwk = match alg {
        Algorithm::Rs256 => {
            let (n, e) = rsa_components(&public)?;
            json!({"use": "sig", "kty": "RSA", "kid": kid, "alg": "RS256", "n": b64(&n), "e": b64(&e)})
        }
        Algorithm::Es256 => {
            if public.len() != 65 || public[0] != 4 {
                return None;
            }
            json!({"use": "sig", "kty": "EC", "kid": kid, "crv": "P-256", "alg": "ES256",
                   "x": b64(&public[1..33]), "y": b64(&public[33..])})
        }
    };
    Some(VerifyKey {
        kid,
        alg,
        public,
        jwk,
    })
}

fn signer_from_pkcs8(der: &[u8], rng: &SystemRandom) -> Option<Signer> {
    if let Ok(k) = EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, der, rng) {
        return Some(Signer::Ec(k));
    }
    RsaKeyPair::from_pkcs8(der).ok().map(Signer::Rsa)
}

fn public_of(signer: &Signer) -> (Algorithm, Vec<u8>) {
    match signer {
        Signer::Rsa(k) => (Algorithm::Rs256, k.public_key().as_ref().to_vec()),
        Signer::Ec(k) => (Algorithm::Es256, k.public_key().as_ref().to_vec()),
    }
}

const SEC1_HINT: &str = "an EC PRIVATE KEY (SEC1) is not read: convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pkcs8`";

/// The private key of a PEM file (PKCS#8 RSA or P-256, or PKCS#1 RSA).
fn read_signer(path: &Path, rng: &SystemRandom) -> Result<Signer, String> {
    let pem = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    for item in rustls_pemfile::read_all(&mut pem.as_slice()) {
        let item = item.map_err(|e| format!("{}: not PEM: {e}", path.display()))?;
        match item {
            Item::Pkcs8Key(k) => {
                return signer_from_pkcs8(k.secret_pkcs8_der(), rng).ok_or_else(|| {
                    format!(
                        "{}: the private key is neither RSA (2048 bits or more) nor ECDSA P-256",
                        path.display()
                    )
                });
            }
            Item::Pkcs1Key(k) => {
                return RsaKeyPair::from_der(k.secret_pkcs1_der())
                    .map(Signer::Rsa)
                    .map_err(|e| format!("{}: not a usable RSA key: {e}", path.display()));
            }
            Item::Sec1Key(_) => return Err(format!("{}: {SEC1_HINT}", path.display())),
            _ => {}
        }
    }
    Err(format!("{}: holds no private key", path.display()))
}

/// The public keys of a PEM file: public keys (PKIX or PKCS#1), and the public half
/// of private keys.
fn read_public_keys(path: &Path, rng: &SystemRandom) -> Result<Vec<VerifyKey>, String> {
    let pem = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&pem);
    let mut keys = Vec::new();
    let bad = |what: &str| format!("{}: {what}", path.display());
    for block in pem_blocks(&text) {
        let (label, der) = block.map_err(|e| bad(&e))?;
        let key = match label.as_str() {
            "PUBLIC KEY" => {
                use x509_parser::prelude::FromDer;
                let (_, spki) = x509_parser::x509::SubjectPublicKeyInfo::from_der(&der)
                    .map_err(|e| bad(&format!("not a public key: {e}")))?;
                let oid = spki.algorithm.algorithm.as_bytes();
                let public = spki.subject_public_key.data.to_vec();
                if oid == OID_RSA {
                    verify_key(Algorithm::Rs256, public)
                } else if oid == OID_EC {
                    verify_key(Algorithm::Es256, public)
                } else {
                    None
                }
            }
            "RSA PUBLIC KEY" => verify_key(Algorithm::Rs256, der),
            "PRIVATE KEY" => signer_from_pkcs8(&der, rng).and_then(|s| {
                let (alg, public) = public_of(&s);
                verify_key(alg, public)
            }),
            "RSA PRIVATE KEY" => RsaKeyPair::from_der(&der)
                .ok()
                .and_then(|k| verify_key(Algorithm::Rs256, k.public_key().as_ref().to_vec())),
            "EC PRIVATE KEY" => return Err(bad(SEC1_HINT)),
            _ => continue,
        };
        keys.push(key.ok_or_else(|| {
            bad(&format!(
                "the {label} is neither RSA (2048 bits or more) nor ECDSA P-256"
            ))
        })?);
    }
    if keys.is_empty() {
        return Err(bad("holds no public or private key"));
    }
    Ok(keys)
}

/// The PEM blocks of a text: (label, DER).
fn pem_blocks(text: &str) -> Vec<Result<(String, Vec<u8>), String>> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(label) = line
            .trim()
            .strip_prefix("-----BEGIN ")
            .and_then(|l| l.strip_suffix("-----"))
        else {
            continue;
        };
        let end = format!("-----END {label}-----");
        let mut body = String::new();
        let mut closed = false;
        for l in lines.by_ref() {
            if l.trim() == end {
                closed = true;
                break;
            }
            body.push_str(l.trim());
        }
        out.push(if !closed {
            Err(format!("the PEM block {label} is not closed"))
        } else {
            base64::engine::general_purpose::STANDARD
                .decode(body.as_bytes())
                .map(|der| (label.to_string(), der))
                .map_err(|e| format!("the PEM block {label} is not base64: {e}"))
        });
    }
    out
}

impl Issuer {
    /// The issuer of `config`: its signing key read or generated, its other keys read.
    pub fn load(config: &AuthConfig) -> Result<Issuer, ConfigError> {
        let rng = SystemRandom::new();
        let fail = |flag: &str, e: String| ConfigError(format!("{flag}: {e}"));
        let signer = match &config.service_account_signing_key_file {
            Some(path) => read_signer(path, &rng)
                .map_err(|e| fail("--service-account-signing-key-file", e))?,
            None => {
                let doc =
                    EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                        .map_err(|_| ConfigError("cannot generate a signing key".into()))?;
                signer_from_pkcs8(doc.as_ref(), &rng)
                    .ok_or_else(|| ConfigError("cannot generate a signing key".into()))?
            }
        };
        let (alg, public) = public_of(&signer);
        let signing_key = verify_key(alg, public).ok_or_else(|| {
            fail(
                "--service-account-signing-key-file",
                "the key's public half cannot be read".into(),
            )
        })?;
        let signing = (signing_key.kid.clone(), alg);
        let mut keys = vec![signing_key];
        for path in &config.service_account_key_files {
            for key in
                read_public_keys(path, &rng).map_err(|e| fail("--service-account-key-file", e))?
            {
                if !keys.iter().any(|k| k.kid == key.kid) {
                    keys.push(key);
                }
            }
        }
        let issuer = config.service_account_issuer.clone();
        if issuer.is_empty() {
            return Err(ConfigError(
                "--service-account-issuer: may not be empty".into(),
            ));
        }
        if issuer.contains(':') && !issuer.starts_with("https://") && !issuer.starts_with("http://")
        {
            return Err(ConfigError(format!(
                "--service-account-issuer: {issuer:?} contains a ':' but is not a URL"
            )));
        }
        let audiences = if config.api_audiences.is_empty() {
            vec![issuer.clone()]
        } else {
            config.api_audiences.clone()
        };
        Ok(Issuer {
            issuer,
            audiences,
            signer,
            signing,
            keys,
            rng,
        })
    }

    /// Signs `message` with the signing key.
    pub fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
        match &self.signer {
            Signer::Ec(k) => k
                .sign(&self.rng, message)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| "signing failed".to_string()),
            Signer::Rsa(k) => {
                let mut sig = vec![0; k.public().modulus_len()];
                k.sign(&signature::RSA_PKCS1_SHA256, &self.rng, message, &mut sig)
                    .map_err(|_| "signing failed".to_string())?;
                Ok(sig)
            }
        }
    }

    /// `/openid/v1/jwks`: the public keys, as a JWK set.
    pub fn jwks(&self) -> Value {
        json!({"keys": self.keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()})
    }
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
