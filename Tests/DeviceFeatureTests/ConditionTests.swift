import CheckInFeature
import CheckInModels
import CheckInStoreClient
import DeviceFeature
import StoreHealthFeature
import TestSupport
import XCTest

/// The LEDs never say "OK" while the device cannot keep its word: a condition holds exactly as
/// long as its cause, whatever else happens meanwhile.
final class ConditionTests: DeviceTestCase {
    let full = StoreFailure(.full, "cannot write /var/lib/lifesignal/lifesignal.sqlite: disk full")

    func testAFullDiskIsAFaultThatARefusedSettingAndADismissalLeaveShowingUntilAWriteSucceeds() async {
        let store = makeStore()
        await start(store)
        checkIns.failWrites(with: full)

        store.send(.checkIn(.checkInRequested(.cli))) { $0.checkIn.isCheckingIn = true }
        await receiveFirstRefusedWrite(store, full)
        XCTAssertEqual(store.state.indicator, .fault)
        XCTAssertEqual(store.state.conditions.map(\.kind), [.storeCannotWrite])

        // A setting the policy refuses: a message, and the fault stays.
        store.send(.checkIn(.intervalSelected(.seconds(60))))
        let refused = SettingsError("interval 1m is outside the allowed range 30m–7d (offered: 8h, 16h, 24h, 48h)")
        await store.receive(.checkIn(.delegate(.settingsRejected(refused)))) {
            $0.messages = [DeviceMessage(.settingsRejected, "settings not changed: \(refused.message)", at: Self.start.wall)]
        }
        XCTAssertEqual(store.state.indicator, .fault, "a refused setting must not erase the fault")

        // Dismissing clears the message, not the condition.
        store.send(.dismissMessages) { $0.messages = [] }
        await store.receive(.notifications(.dismissError))
        XCTAssertEqual(store.state.indicator, .fault, "dismiss-error must not erase the fault")

        // The retry finds the disk still full: still a fault.
        scripts.probes.withLock { $0 = [.failure(full), .success(StoreProbeReport())] }
        await testClock.advance(by: .seconds(1))
        await store.receive(.store(.retryDue)) {
            $0.store.nextAttempt = nil
            $0.store.isProbing = true
        }
        await store.receive(.store(.probeResponse(.failure(full)))) {
            $0.store.isProbing = false
            $0.store.consecutiveFailures = 2
            $0.store.nextAttempt = Self.start.wall + .seconds(3)
        }
        XCTAssertEqual(store.state.indicator, .fault)

        // Space is freed: the next retry proves the store writes, and the device recovers by itself.
        checkIns.failWrites(with: nil)
        await testClock.advance(by: .seconds(2))
        await store.receive(.store(.retryDue)) {
            $0.store.nextAttempt = nil
            $0.store.isProbing = true
        }
        await store.receive(.store(.probeResponse(.success(StoreProbeReport())))) {
            $0.store.isProbing = false
            $0.store.problem = nil
            $0.store.consecutiveFailures = 0
        }
        await store.receive(.store(.delegate(.writable)))
        await store.receive(.checkIn(.storeWritable))
        XCTAssertEqual(store.state.indicator, .neverCheckedIn)
        XCTAssertEqual(store.state.conditions, [])
        await stop(store)
    }

    func testAFullDiskAtStartIsAFaultBeforeAnyonePresses() async {
        let store = makeStore()
        await start(store, probe: .failure(full))
        XCTAssertEqual(store.state.indicator, .fault)
        XCTAssertEqual(store.state.conditions.first?.message, full.message)
        XCTAssertTrue(store.state.conditions.first?.advice.contains("free space") == true)
        scripts.probes.withLock { $0 = [.failure(full)] }
        await stop(store)
    }
}
