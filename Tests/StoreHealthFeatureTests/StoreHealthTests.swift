import CheckInModels
import CheckInStoreClient
import StoreHealthFeature
import Synchronization
import TestSupport
import XCTest

/// The store's problems are conditions with their own cause and their own clearing rule: a write
/// that reaches the disk clears them, nothing else does, and the device retries by itself.
final class StoreHealthTests: ReducerTestCase {
    let full = StoreFailure(.full, "cannot write /var/lib/lifesignal/lifesignal.sqlite: disk full")
    let moved = StoreFailure(.moved, "/var/lib/lifesignal/lifesignal.sqlite was deleted while open")

    /// Answers probes and recoveries from a script, one answer per call.
    final class Script: Sendable {
        let probes = Mutex<[Result<StoreProbeReport, StoreFailure>]>([])
        let recoveries = Mutex<[Result<StoreRecoveryReport, StoreFailure>]>([])

        var client: StoreMaintenanceClient {
            StoreMaintenanceClient(
                probe: { [self] () throws(StoreFailure) in
                    guard let next = probes.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                        throw StoreFailure.unexpected("probe beyond the script")
                    }
                    return try next.get()
                },
                recover: { [self] () throws(StoreFailure) in
                    guard let next = recoveries.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                        throw StoreFailure.unexpected("recover beyond the script")
                    }
                    return try next.get()
                })
        }
    }

    let script = Script()

    func makeStore() -> TestStore<StoreHealthFeature> {
        TestStore(initialState: StoreHealthFeature.State(),
                  reducer: StoreHealthFeature(maintenance: script.client, clock: makeClock()))
    }

    func testAFullDiskAtStartIsAProblemBeforeAnyonePressesAndClearsBySelfOnceSpaceIsFree() async {
        script.probes.withLock { $0 = [.failure(full), .failure(full), .success(StoreProbeReport())] }
        let store = makeStore()
        store.send(.start) {
            $0.isRunning = true
            $0.isProbing = true
        }
        await store.receive(.probeResponse(.failure(full))) {
            $0.isProbing = false
            $0.problem = StoreProblem(self.full, since: Self.start.wall)
            $0.consecutiveFailures = 1
            $0.nextAttempt = Self.start.wall + .seconds(1)
        }
        XCTAssertEqual(store.state.problem?.kind, .cannotWrite)

        await testClock.advance(by: .seconds(1))
        await store.receive(.retryDue) {
            $0.nextAttempt = nil
            $0.isProbing = true
        }
        await store.receive(.probeResponse(.failure(full))) {
            $0.isProbing = false
            $0.consecutiveFailures = 2
            $0.nextAttempt = Self.start.wall + .seconds(3)
        }
        // The backoff doubles: nothing at one second, the retry at two.
        await testClock.advance(by: .seconds(1))
        await store.expectNoAction()
        await testClock.advance(by: .seconds(1))
        await store.receive(.retryDue) {
            $0.nextAttempt = nil
            $0.isProbing = true
        }
        await store.receive(.probeResponse(.success(StoreProbeReport()))) {
            $0.isProbing = false
            $0.problem = nil
            $0.provenWritable = true
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.writable))
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }

    func testOnlyAWriteThatReachedTheDiskClearsTheProblem() async {
        script.probes.withLock { $0 = [.success(StoreProbeReport())] }
        let store = makeStore()
        store.send(.start) {
            $0.isRunning = true
            $0.isProbing = true
        }
        await store.receive(.probeResponse(.success(StoreProbeReport()))) {
            $0.isProbing = false
            $0.provenWritable = true
        }
        await store.receive(.delegate(.writable))

        // A press fails on a full disk: a problem, and a retry scheduled.
        store.send(.operationFailed(full)) {
            $0.problem = StoreProblem(self.full, since: Self.start.wall)
            $0.consecutiveFailures = 1
            $0.nextAttempt = Self.start.wall + .seconds(1)
        }
        // A second failed press meanwhile neither moves the retry nor restarts its backoff.
        await testClock.advance(by: .milliseconds(500))
        store.send(.operationFailed(full)) { $0.consecutiveFailures = 2 }
        XCTAssertEqual(store.state.nextAttempt, Self.start.wall + .seconds(1))

        // The next press is stored: the problem is over and the retry is cancelled.
        store.send(.writeSucceeded) {
            $0.problem = nil
            $0.consecutiveFailures = 0
            $0.nextAttempt = nil
        }
        await store.receive(.delegate(.writable))
        await testClock.advance(by: .seconds(10))
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }

    func testAStoreFileDeletedWhileRunningIsRecoveredAtOnceAndTheDeviceReloads() async {
        script.probes.withLock { $0 = [.success(StoreProbeReport())] }
        let report = StoreRecoveryReport(summary: "x was missing; created it afresh; rows copied from the open handle: check_ins 7", rowsRecovered: 7)
        script.recoveries.withLock { $0 = [.success(report)] }
        let store = makeStore()
        store.send(.start) {
            $0.isRunning = true
            $0.isProbing = true
        }
        await store.receive(.probeResponse(.success(StoreProbeReport()))) {
            $0.isProbing = false
            $0.provenWritable = true
        }
        await store.receive(.delegate(.writable))

        store.send(.operationFailed(moved)) {
            $0.problem = StoreProblem(self.moved, since: Self.start.wall)
            $0.needsRecovery = true
            $0.isRecovering = true
        }
        XCTAssertEqual(store.state.problem?.kind, .fileMovedOrReplaced)
        // Writes refused meanwhile do not start a second recovery, and no write can clear it.
        store.send(.operationFailed(moved))
        store.send(.writeSucceeded)
        await store.receive(.recoverResponse(.success(report))) {
            $0.isRecovering = false
            $0.needsRecovery = false
            $0.problem = nil
        }
        await store.receive(.delegate(.recovered(report)))
        await store.receive(.delegate(.writable))
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }

    func testARecoveryThatFailsIsRetriedAsARecoveryNotAProbe() async {
        script.probes.withLock { $0 = [.success(StoreProbeReport())] }
        let newer = StoreFailure(.newerSchema, "database x has schema version 99")
        let report = StoreRecoveryReport(summary: "x was another LifeSignal store; merged into it; rows copied from the open handle: check_ins 2", rowsRecovered: 2)
        script.recoveries.withLock { $0 = [.failure(newer), .success(report)] }
        let store = makeStore()
        store.send(.start) {
            $0.isRunning = true
            $0.isProbing = true
        }
        await store.receive(.probeResponse(.success(StoreProbeReport()))) {
            $0.isProbing = false
            $0.provenWritable = true
        }
        await store.receive(.delegate(.writable))
        store.send(.operationFailed(moved)) {
            $0.problem = StoreProblem(self.moved, since: Self.start.wall)
            $0.needsRecovery = true
            $0.isRecovering = true
        }
        // The file now at the path is a newer release's: refused, the old handle kept.
        await store.receive(.recoverResponse(.failure(newer))) {
            $0.isRecovering = false
            $0.problem = StoreProblem(newer, since: Self.start.wall)
            $0.consecutiveFailures = 1
            $0.nextAttempt = Self.start.wall + .seconds(1)
        }
        XCTAssertEqual(store.state.problem?.kind, .schemaRefused)
        // The retry recovers (the open handle is still the old file): a probe would not help.
        await testClock.advance(by: .seconds(1))
        await store.receive(.retryDue) {
            $0.nextAttempt = nil
            $0.isRecovering = true
        }
        await store.receive(.recoverResponse(.success(report))) {
            $0.isRecovering = false
            $0.needsRecovery = false
            $0.problem = nil
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.recovered(report)))
        await store.receive(.delegate(.writable))
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }

    func testADamagedFileMovedAsideAtStartIsReported() async {
        let moved = "database x was damaged and has been moved aside to x.corrupt-20261122T080000Z"
        script.probes.withLock { $0 = [.success(StoreProbeReport(replacedDamagedFile: moved))] }
        let store = makeStore()
        store.send(.start) {
            $0.isRunning = true
            $0.isProbing = true
        }
        await store.receive(.probeResponse(.success(StoreProbeReport(replacedDamagedFile: moved)))) {
            $0.isProbing = false
            $0.provenWritable = true
        }
        await store.receive(.delegate(.replacedDamagedFile(moved)))
        await store.receive(.delegate(.writable))
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }

    func testEachKindOfFailureNamesItsProblemAndAdvice() {
        let since = Self.start.wall
        XCTAssertEqual(StoreProblem(StoreFailure(.readOnly, "x"), since: since).kind, .cannotWrite)
        XCTAssertEqual(StoreProblem(StoreFailure(.other, "disk I/O error"), since: since).kind, .cannotWrite)
        XCTAssertEqual(StoreProblem(StoreFailure(.newerSchema, "x"), since: since).kind, .schemaRefused)
        XCTAssertEqual(StoreProblem(StoreFailure(.unavailable, "x"), since: since).kind, .cannotOpen)
        XCTAssertTrue(StoreProblem(full, since: since).advice.contains("free space"))
        XCTAssertTrue(StoreProblem(StoreFailure(.readOnly, "x"), since: since).advice.contains("writable"))
    }
}
