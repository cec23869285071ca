use super::root_ca::{certificates, read};

const ONE: &str = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----";
const TWO: &str = "-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----";

#[test]
fn certificates_are_cut_from_a_pem_bundle() {
    let text = format!("junk\n{ONE}\n# comment\n{TWO}\n-----BEGIN CERTIFICATE-----\nunterminated");
    assert_eq!(certificates(&text), vec![ONE, TWO]);
    assert!(certificates("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----").is_empty());
}

#[test]
fn a_file_without_a_certificate_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("tls.key");
    std::fs::write(
        &key,
        "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let e = read(&key).unwrap_err();
    assert_eq!(
        e,
        format!("{}: no PEM certificate in the file", key.display())
    );
    let missing = dir.path().join("absent.crt");
    assert!(
        read(&missing)
            .unwrap_err()
            .starts_with(&missing.display().to_string())
    );
    let bundle = dir.path().join("ca.crt");
    std::fs::write(&bundle, format!("{ONE}\n{TWO}\n")).unwrap();
    assert_eq!(read(&bundle).unwrap(), format!("{ONE}\n{TWO}\n"));
}
