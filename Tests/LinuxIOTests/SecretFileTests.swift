import Glibc
import LinuxIO
import TestSupport
import XCTest

/// Secrets (the uplink token, the MQTT password) come from files no other user can read; every
/// refusal names the file and the fix, and none shows the secret.
final class SecretFileTests: XCTestCase {
    func testTheSecretIsTheFilesTextWithoutTheSpaceAroundItSpacesInsideKept() throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("password", "  correct horse battery\n", mode: 0o600)
        XCTAssertEqual(try SecretFile.read(path: path, what: "the MQTT password file", secret: "the password"),
                       "correct horse battery")
    }

    func testAFileOthersCanReadAnEmptyOneAndAMissingOneAreRefusedNamingTheFix() throws {
        let folder = try TemporaryDirectory()
        let readable = try folder.write("wide", "secret-value\n", mode: 0o644)
        XCTAssertThrowsError(try SecretFile.read(path: readable, what: "the MQTT password file", secret: "the password")) { error in
            let message = (error as? SecretFileError)?.message ?? ""
            XCTAssertTrue(message.contains("the MQTT password file \(readable) has mode 0644"), message)
            XCTAssertTrue(message.contains("chmod 600 \(readable)"), message)
            XCTAssertFalse(message.contains("secret-value"), "the secret never shows: \(message)")
        }
        let empty = try folder.write("empty", "\n", mode: 0o600)
        XCTAssertThrowsError(try SecretFile.read(path: empty, what: "the MQTT password file", secret: "the password")) { error in
            XCTAssertEqual((error as? SecretFileError)?.message, "the MQTT password file \(empty) is empty; put the password in it")
        }
        XCTAssertThrowsError(try SecretFile.read(path: folder.file("none"), what: "the MQTT password file", secret: "the password")) { error in
            let message = (error as? SecretFileError)?.message ?? ""
            XCTAssertTrue(message.contains("No such file or directory"), message)
            XCTAssertTrue(message.contains("mode 0600"), message)
        }
        XCTAssertThrowsError(try SecretFile.read(path: folder.path, what: "the MQTT password file", secret: "the password")) { error in
            XCTAssertEqual((error as? SecretFileError)?.message, "the MQTT password file \(folder.path) is not a regular file")
        }
    }
}
