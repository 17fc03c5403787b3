import Foundation
import TestSupport
import XCTest

/// lifesignald loads libmosquitto (and OpenSSL with it) only for `[mqtt]`: a device without it
/// never maps it; a configured broker without a usable libmosquitto stops start-up with
/// EX_UNAVAILABLE (69) and a message naming the package, never a crash.
final class LibmosquittoLoadingTests: XCTestCase {
    private func mapsLibmosquitto(_ device: DaemonHarness) throws -> Bool {
        let pid = try XCTUnwrap(device.daemon?.processIdentifier)
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        defer { try? handle.close() }
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self).contains("/libmosquitto.so")
    }

    func testOnlyADeviceWithMQTTMapsLibmosquitto() throws {
        let offline = try DaemonHarness(interval: "1h", reminder: "10m")
        try offline.start()
        XCTAssertFalse(try mapsLibmosquitto(offline), "libmosquitto is mapped although [mqtt] is not configured")
        XCTAssertEqual(offline.stop(), 0)

        let broker = try MosquittoBroker()
        let device = try DaemonHarness.mqtt(port: broker.port)
        try device.start()
        XCTAssertTrue(try mapsLibmosquitto(device))
        XCTAssertEqual(device.stop(), 0)
    }

    func testALibraryThatIsNotLibmosquittoStopsTheStartWithEXUNAVAILABLENamingThePackage() throws {
        let folder = try TemporaryDirectory(prefix: "lifesignal-libmosquitto")
        try folder.write(Array("not a library".utf8), to: folder.file("libmosquitto.so.1"))
        let device = try DaemonHarness.mqtt(port: 1883)
        XCTAssertThrowsError(try device.start(environment: ["LD_LIBRARY_PATH": folder.path]))
        XCTAssertEqual(device.daemon?.terminationStatus, 69, device.log)
        XCTAssertTrue(device.log.contains("mqtt: cannot load libmosquitto.so.1"), device.log)
        XCTAssertTrue(device.log.contains("install the Debian package libmosquitto1"), device.log)
    }
}
