use super::*;

fn issuer() -> Issuer {
    Issuer::load(&AuthConfig::default()).unwrap()
}

#[test]
fn a_generated_key_signs_what_its_public_half_verifies() {
    let i = issuer();
    assert_eq!(i.signing.1, Algorithm::Es256);
    let sig = i.sign(b"message").unwrap();
    assert!(i.keys[0].verifies(b"message", &sig));
    assert!(!i.keys[0].verifies(b"other", &sig));
    let jwks = i.jwks();
    assert_eq!(jwks["keys"][0]["kty"], "EC");
    assert_eq!(jwks["keys"][0]["kid"], i.signing.0.as_str());
    assert_eq!(i.audiences, [crate::auth::DEFAULT_ISSUER]);
}

#[test]
fn key_files_are_read_or_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    // A PKCS#8 P-256 key as `openssl genpkey` writes it.
    let rng = SystemRandom::new();
    let doc =
        EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        base64::engine::general_purpose::STANDARD.encode(doc.as_ref())
    );
    let key = dir.path().join("sa.key");
    std::fs::write(&key, pem).unwrap();
    let config = AuthConfig {
        service_account_signing_key_file: Some(key.clone()),
        service_account_key_files: vec![key.clone()],
        ..AuthConfig::default()
    };
    let i = Issuer::load(&config).unwrap();
    // The same key twice is one key.
    assert_eq!(i.keys.len(), 1);
    let bad = dir.path().join("bad.key");
    std::fs::write(&bad, "not a key").unwrap();
    let config = AuthConfig {
        service_account_signing_key_file: Some(bad.clone()),
        ..AuthConfig::default()
    };
    let err = Issuer::load(&config).err().unwrap().to_string();
    assert_eq!(
        err,
        format!(
            "--service-account-signing-key-file: {}: holds no private key",
            bad.display()
        )
    );
    let sec1 = dir.path().join("ec.key");
    std::fs::write(
        &sec1,
        "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
    )
    .unwrap();
    let config = AuthConfig {
        service_account_key_files: vec![sec1],
        ..AuthConfig::default()
    };
    let err = Issuer::load(&config).err().unwrap().to_string();
    assert!(err.contains("openssl pkcs8 -topk8"), "{err}");
}
