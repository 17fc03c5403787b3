import Foundation
import TestSupport
import XCTest

/// lifesignald loads libcurl (and the ~29 libraries it pulls in) only when `[uplink]` or
/// `[healthchecks]` needs it. An offline device never maps it; a configured uplink without a usable
/// libcurl stops start-up with EX_UNAVAILABLE (69) and a message naming the package, never a crash.
/// A broken libcurl is put first on the daemon's search path with LD_LIBRARY_PATH.
final class LibcurlLoadingTests: XCTestCase {
    /// A folder whose libcurl.so.4 is `contents`: a copy of another library, or bytes that are no ELF.
    private func brokenLibcurl(_ contents: Data) throws -> String {
        let folder = try TemporaryDirectory(prefix: "lifesignal-libcurl")
        addTeardownBlock { folder.remove() }
        try folder.write(Array(contents), to: folder.file("libcurl.so.4"))
        return folder.path
    }

    /// A real shared library that is not libcurl: this test process's libsqlite3, copied.
    private func sqliteLibrary() throws -> Data {
        let maps = try procFile("/proc/self/maps")
        let path = try XCTUnwrap(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }.first { $0.contains("/libsqlite3.so") }, "the test process maps libsqlite3")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    private func mapsLibcurl(_ device: DaemonHarness) throws -> Bool {
        let pid = try XCTUnwrap(device.daemon?.processIdentifier)
        return try procFile("/proc/\(pid)/maps").contains("/libcurl.so")
    }

    /// A /proc file read to its end (they report size 0, so whole-file readers may return nothing).
    private func procFile(_ path: String) throws -> String {
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: path), path)
        defer { try? handle.close() }
        let text = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        XCTAssertFalse(text.isEmpty, "\(path) read as empty")
        return text
    }

    func testAnOfflineDaemonNeitherMapsLibcurlNorNeedsAWorkingOne() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()
        XCTAssertEqual(try device.ctl(["check-in"]).exitCode, 0)
        XCTAssertFalse(try mapsLibcurl(device), "libcurl is mapped although no uplink is configured")
        XCTAssertEqual(device.stop(), 0)

        try device.start(environment: ["LD_LIBRARY_PATH": try brokenLibcurl(Data("not a library".utf8))])
        XCTAssertEqual(try device.ctl(["check-in"]).exitCode, 0)
        XCTAssertEqual(device.stop(), 0)
    }

    func testAnUplinkLoadsLibcurlWhenItStarts() throws {
        let device = try DaemonHarness.uplinked(to: "http://127.0.0.1:\(try freeLoopbackPort())", token: "e2e-token", for: self)
        try device.start()
        XCTAssertTrue(try mapsLibcurl(device))
        XCTAssertEqual(device.stop(), 0)
    }

    func testAnUplinkWithALibraryThatIsNotLibcurlStopsWithEXUNAVAILABLENamingTheFunctionAndPackage() throws {
        let device = try DaemonHarness.uplinked(to: "http://127.0.0.1:9", token: "e2e-token", for: self)
        let folder = try brokenLibcurl(try sqliteLibrary())
        XCTAssertThrowsError(try device.start(environment: ["LD_LIBRARY_PATH": folder]))
        XCTAssertEqual(device.daemon?.terminationStatus, 69, device.log)
        XCTAssertTrue(device.log.contains("libcurl.so.4 has no function curl_global_init"), device.log)
        XCTAssertTrue(device.log.contains("install the Debian package libcurl4"), device.log)
    }

    func testHealthchecksWithAnUnloadableLibcurlStopWithEXUNAVAILABLENamingThePackage() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [healthchecks]
            check_in_url = "http://127.0.0.1:9/ping/5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"
            """)
        let folder = try brokenLibcurl(Data("not a library".utf8))
        XCTAssertThrowsError(try device.start(environment: ["LD_LIBRARY_PATH": folder]))
        XCTAssertEqual(device.daemon?.terminationStatus, 69, device.log)
        XCTAssertTrue(device.log.contains("healthchecks: cannot load libcurl.so.4"), device.log)
        XCTAssertTrue(device.log.contains("install the Debian package libcurl4"), device.log)
    }
}
