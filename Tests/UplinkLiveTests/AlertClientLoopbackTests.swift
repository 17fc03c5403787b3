import CheckInModels
import DevServer
import DeviceAPI
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// Help alerts between the live client and the reference server over loopback: every field
/// arrives, the server keeps one per id, and a bad alert is refused for good with the server's
/// message. (Delivery through faults by the whole device: DeviceRuntimeTests' AlertDeliveryTests.)
final class AlertClientLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "alert-test")
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        backend = nil
    }

    private func alert(source: AlertSource = .button) -> AlertRecord {
        let at = DeviceInstant(wall: WallTime(microsecondsSinceEpoch: 1_795_000_000_123_456), uptime: .microseconds(4_200_000),
                               bootID: "alert-boot", wallClockSynchronized: true)
        return AlertRecord(id: .random(), at: at, source: source)
    }

    func testTheServerStoresAnAlertOncePerIdWithEveryField() async throws {
        let client = backend.client(transport: transport)
        let alert = alert(source: .cli)
        let first = await client.sendAlert(alert)
        XCTAssertEqual(try first.get(), [alert.id])
        let second = await client.sendAlert(alert)
        XCTAssertEqual(try second.get(), [alert.id], "a resend is acknowledged again")

        let stored = try backend.server.storedAlerts(device: LoopbackBackend.device)
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored.first?.alert, UploadedAlert(alert))
        XCTAssertEqual(stored.first?.alert.wallTime, "2026-11-18T11:06:40.123456Z")
        XCTAssertEqual(stored.first?.alert.uptimeMicroseconds, 4_200_000)
        XCTAssertEqual(stored.first?.alert.source, "cli")
        XCTAssertEqual(stored.first?.receipts, 2)
        XCTAssertEqual(backend.server.stats.alertsReceived, 2)
        XCTAssertEqual(try backend.server.storedCheckIns(device: LoopbackBackend.device), [], "alerts are not check-ins")
    }

    func testAnInvalidAlertIsRefusedPermanentlyWithTheServersMessage() async throws {
        let client = backend.client(transport: transport)
        var alert = alert()
        alert.at.bootID = ""
        let result = await client.sendAlert(alert)
        guard case let .failure(failure) = result else { return XCTFail("an alert without a boot id must be refused") }
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertEqual(failure.httpStatus, 400)
        XCTAssertTrue(failure.message.contains("bootId"), failure.message)
        XCTAssertEqual(try backend.server.storedAlerts(), [])
    }
}
