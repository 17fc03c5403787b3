import Foundation
import Glibc
import UplinkLive
import XCTest

final class DeviceTokenTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifesignal-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func tokenFile(_ contents: String, mode: mode_t) throws -> String {
        let path = directory.appendingPathComponent("token").path
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(path, mode), 0)
        return path
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
        XCTAssertThrowsError(try DeviceToken.read(path: directory.appendingPathComponent("absent").path))
        XCTAssertThrowsError(try DeviceToken.read(path: try tokenFile("\n", mode: 0o600)))
        XCTAssertThrowsError(try DeviceToken.read(path: try tokenFile("two words\n", mode: 0o600)))
    }
}
