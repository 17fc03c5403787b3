import CheckInModels
import CheckInStoreClient
import ControlProtocol
import DeviceControl
import DeviceFeature
import GPIOClient
import StoreHealthFeature
import UploadFeature
import TestSupport
import XCTest

/// What `status` (and the one-line summary for systemd and the terminal) says: every condition
/// with what to do about it, the most serious first; messages apart from conditions; the LEDs as
/// the driver last wrote them; and "unknown" rather than a made-up number when the store cannot
/// be read.
@MainActor
final class StatusReportTests: XCTestCase {
    static let full = StoreFailure(.full, "database or disk is full: /var/lib/lifesignal/checkins.sqlite")
    static let chip = GPIOError(operation: "read GPIO events", target: "chip 'gpiochip0'", reason: "the chip was removed")

    func testEveryConditionIsListedWithItsAdviceAndTheMostSeriousIsTheError() async throws {
        let fixture = ControlFixture { state in
            state.store.problem = StoreProblem(Self.full, since: ControlFixture.now.wall)
            state.gpio.connection = .waiting(Self.chip)
            state.gpio.shownFailure = Self.chip
        }
        let status = await fixture.reporter.status(fixture.store.state)
        let conditions = try XCTUnwrap(status.conditions)
        XCTAssertEqual(conditions.map(\.kind), ["store_cannot_write", "gpio_unavailable"])
        XCTAssertEqual(conditions.map(\.fault), [true, true])
        XCTAssertTrue(conditions[0].advice.contains("free space"), conditions[0].advice)
        XCTAssertEqual(conditions[0].since, ControlFixture.now.wall.iso8601)
        XCTAssertTrue(conditions[1].message.contains("the chip was removed"), conditions[1].message)
        XCTAssertFalse(conditions[1].advice.isEmpty)
        XCTAssertEqual(status.error, Self.full.message)
        XCTAssertEqual(status.indicator, "fault")
        let summary = fixture.reporter.summary(fixture.store.state)
        XCTAssertTrue(summary.hasPrefix("fault · "), summary)
        XCTAssertTrue(summary.contains(Self.full.message), summary)
    }

    func testAMessageIsListedWithoutBeingAFaultAndDismissingItLeavesTheConditions() async throws {
        let fixture = ControlFixture { state in
            state.store.problem = StoreProblem(Self.full, since: ControlFixture.now.wall)
            state.messages = [DeviceMessage(.settingsRejected, "settings not changed: interval 1m is too short", at: ControlFixture.now.wall)]
        }
        var status = await fixture.reporter.status(fixture.store.state)
        XCTAssertEqual(status.messages, ["settings not changed: interval 1m is too short"])
        XCTAssertEqual(status.conditions?.map(\.kind), ["store_cannot_write"], "a message is not a condition")

        let dismissed = try await fixture.answer(ControlRequest(.dismissError))
        status = try XCTUnwrap(dismissed.status)
        XCTAssertEqual(status.messages, [])
        XCTAssertEqual(status.conditions?.map(\.kind), ["store_cannot_write"], "only its cause clears a condition")
        XCTAssertEqual(status.indicator, "fault")
    }

    func testANonFaultConditionIsListedButLeavesTheLEDsAlone() async throws {
        let fixture = ControlFixture { state in
            var upload = UploadFeature<CheckInRecord>.State(noun: "check-ins", endpoint: "https://backend.example")
            upload.status = .stopped
            upload.lastMessage = "POST https://backend.example/v1/check-ins: HTTP 401 unknown bearer token"
            state.checkInUpload = upload
        }
        let status = await fixture.reporter.status(fixture.store.state)
        XCTAssertEqual(status.conditions?.map(\.kind), ["upload_refused"])
        XCTAssertEqual(status.conditions?.map(\.fault), [false], "the check-ins are kept: the device keeps its word")
        XCTAssertTrue(status.conditions?.first?.message.contains("HTTP 401") == true, "\(status.conditions ?? [])")
        XCTAssertNotEqual(status.indicator, "fault")
        XCTAssertEqual(status.error, status.conditions?.first?.message, "with no fault, the first condition is the error")
    }

    func testTimeUnknownIsAFault() async throws {
        let fixture = ControlFixture { state in state.checkIn.elapsedTimeUnknown = true }
        let status = await fixture.reporter.status(fixture.store.state)
        XCTAssertEqual(status.conditions?.map(\.kind), ["time_unknown"])
        XCTAssertEqual(status.indicator, "fault", "nobody can tell whether the person is overdue")
    }

    func testAStoreThatCannotBeReadIsAnUnknownDepthNotZero() async throws {
        let fixture = ControlFixture(stores: { clients, _ in
            clients.checkIns.pendingUploadCount = { () throws(StoreFailure) in throw StoreFailure(.readOnly, "read-only") }
        })
        let status = await fixture.reporter.status(fixture.store.state)
        XCTAssertEqual(status.queueDepth, -1)
        // Alerts waiting are what the device holds (and shows on the LEDs), not a second read.
        XCTAssertEqual(status.alert?.waiting, 0)
    }

    func testTheLEDsAreReportedAsTheDriverLastWroteThem() async throws {
        let fixture = ControlFixture()
        fixture.leds.show(.checkedIn)
        let status = await fixture.reporter.status(fixture.store.state)
        XCTAssertEqual(status.leds.map(\.name), ["green", "amber", "red"])
        XCTAssertEqual(status.leds.map(\.on), [true, false, false])
        XCTAssertEqual(fixture.lit, [true, false, false])
        XCTAssertEqual(status.gpioBackend, "libgpiod")
        XCTAssertEqual(status.now, ControlFixture.now.wall.iso8601)
    }
}
