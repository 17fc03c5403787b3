import Glibc
import TestSupport
import UplinkLive
import XCTest

final class DeviceTokenTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-token")
    }

    override func tearDown() {
        directory = nil
    }

    private func tokenFile(_ contents: String, mode: mode_t) throws -> String {
        try directory.write("token", contents, mode: mode)
    }

    func testAnOwnerOnlyFileIsReadAndTrimmed() throws {
        let path = try tokenFile("  s3cr3t-token\n", mode: 0o600)
        let token = try DeviceToken.read(path: path)
        XCTAssertEqual("\(token)", "<device token, 12 bytes>")
    }

    func testAGroupReadableFileIsAccepted() throws {
        XCTAssertNoThrow(try DeviceToken.read(path: try tokenFile("abc", mode: 0o640)))
    }

    func testAFileOthersCanReadIsRefusedNamingTheFileAndItsMode() throws {
        let path = try tokenFile("abc", mode: 0o644)
        XCTAssertThrowsError(try DeviceToken.read(path: path)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains(path), message)
            XCTAssertTrue(message.contains("0644"), message)
            XCTAssertTrue(message.contains("chmod 600"), message)
            XCTAssertFalse(message.contains("abc"), "the message never shows the token")
        }
    }

    func testMissingEmptyAndMultiWordFilesAreRefused() throws {
        XCTAssertThrowsError(try DeviceToken.read(path: directory.file("absent")))
        XCTAssertThrowsError(try DeviceToken.read(path: try tokenFile("\n", mode: 0o600)))
        XCTAssertThrowsError(try DeviceToken.read(path: try tokenFile("two words\n", mode: 0o600)))
    }

    /// `[healthchecks] api_key_file`: the token file's rules, named as what it is, and the length
    /// healthchecks' keys have.
    func testAHealthchecksAPIKeyFileHasTheTokensRulesAndTheKeysLength() throws {
        let key = String(repeating: "k", count: 32)
        XCTAssertNoThrow(try DeviceToken.readHealthchecksAPIKey(path: try tokenFile(key + "\n", mode: 0o640)))
        XCTAssertThrowsError(try DeviceToken.readHealthchecksAPIKey(path: try tokenFile(key, mode: 0o644))) { error in
            XCTAssertTrue("\(error)".contains("the healthchecks API key file"), "\(error)")
            XCTAssertTrue("\(error)".contains("chmod 600"), "\(error)")
            XCTAssertFalse("\(error)".contains(key), "the message never shows the key")
        }
        XCTAssertThrowsError(try DeviceToken.readHealthchecksAPIKey(path: try tokenFile("too-short", mode: 0o600))) { error in
            XCTAssertTrue("\(error)".contains("holds 9 characters; a healthchecks API key has 32"), "\(error)")
        }
    }
}
