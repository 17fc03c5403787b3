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
}
