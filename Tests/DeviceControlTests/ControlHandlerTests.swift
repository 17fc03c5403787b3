import CheckInModels
import CheckInStoreClient
import ControlProtocol
import DeviceControl
import TestSupport
import XCTest

/// Requests the handler refuses with a reason before they reach the device, and the values it
/// takes from a request: never a silent default in place of something unreadable.
@MainActor
final class ControlHandlerTests: XCTestCase {
    func testHistoryAsksTheStoreForTheLimitGivenOrTheDefaultAndRefusesOneOutOfRange() async throws {
        let fixture = ControlFixture()
        var answer = try await fixture.answer(ControlRequest(.history))
        XCTAssertTrue(answer.ok, answer.error ?? "")
        answer = try await fixture.answer(ControlRequest(.history, limit: 10_000))
        XCTAssertTrue(answer.ok, answer.error ?? "")
        XCTAssertEqual(fixture.historyLimits, [ControlRequest.defaultHistoryLimit, 10_000])

        for limit in [0, -1, 10_001] {
            answer = try await fixture.answer(ControlRequest(.history, limit: limit))
            XCTAssertFalse(answer.ok)
            XCTAssertEqual(answer.error, "history limit must be between 1 and 10000, not \(limit)")
        }
        XCTAssertEqual(fixture.historyLimits.count, 2, "a refused limit never reaches the store")
    }

    func testAHistoryTheStoreCannotReadSaysSo() async throws {
        let fixture = ControlFixture(stores: { clients, _ in
            clients.checkIns.history = { _ throws(StoreFailure) in throw StoreFailure(.other, "disk I/O error") }
        })
        let answer = try await fixture.answer(ControlRequest(.history))
        XCTAssertEqual(answer.error, "history could not be read: disk I/O error")
    }

    func testASimulatedPressNeedsTheSimulatedBoard() async throws {
        let answer = try await ControlFixture(gpioBackend: "libgpiod").answer(ControlRequest(.simPress, hold: "150ms"))
        XCTAssertFalse(answer.ok)
        XCTAssertEqual(answer.error, "sim press needs the simulated GPIO backend; this daemon uses libgpiod")
    }

    func testSettingsNeedAValueAndADurationItCanRead() async throws {
        let fixture = ControlFixture()
        var answer = try await fixture.answer(ControlRequest(.setSettings))
        XCTAssertEqual(answer.error, "give --interval, --reminder or both")
        answer = try await fixture.answer(ControlRequest(.setSettings, interval: "soon"))
        XCTAssertFalse(answer.ok)
        XCTAssertTrue(answer.error?.contains("interval") == true, answer.error ?? "")
        XCTAssertEqual(fixture.store.state.checkIn.settings, .default, "nothing changed")
    }

    func testAlertsThatAreOffOrHaveNoWindowOpenAreRefusedSayingWhy() async throws {
        let off = ControlFixture { state in state.checkIn.alert.settings = nil }
        var answer = try await off.answer(ControlRequest(.alertSend))
        XCTAssertEqual(answer.error, "alerts are off on this device ([alert] enabled = false)")
        answer = try await ControlFixture().answer(ControlRequest(.alertCancel))
        XCTAssertFalse(answer.ok)
        XCTAssertTrue(answer.error?.hasPrefix("no alert is waiting to be sent") == true, answer.error ?? "")
    }

    func testALineThatIsNotARequestIsRefusedWithTheReason() async throws {
        let fixture = ControlFixture()
        for line in ["", "{", #"{"command":"reboot"}"#, #"{"command":"history","limit":"ten"}"#] {
            let answer = try await fixture.answer(line: line)
            XCTAssertFalse(answer.ok, line)
            XCTAssertTrue(answer.error?.hasPrefix("bad request: ") == true, "\(line): \(answer.error ?? "")")
        }
    }
}
