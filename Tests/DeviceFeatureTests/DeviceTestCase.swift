import CheckInFeature
import CheckInModels
import CheckInStoreClient
import DeviceClock
import DeviceConfig
import DeviceFeature
import GPIOClient
import GPIOFeature
import StoreHealthFeature
import Synchronization
import TestSupport
import XCTest

/// The whole device feature with in-memory clients: a store whose writes can fail, scripted store
/// probes, and a chip the test can take away. Everything else fails the test if it is called.
@MainActor
class DeviceTestCase: ReducerTestCase {
    let checkIns = FakeCheckInStore(settings: StoredSettings(settings: .default, version: 1, appliedFromConfig: nil))
    let alerts = FakeAlertStore()
    let powerEvents = FakePowerEventStore()
    /// What the test scripts or feeds, shared with the clients' closures.
    final class Scripts: Sendable {
        let probes = Mutex<[Result<StoreProbeReport, StoreFailure>]>([])
        let recoveries = Mutex<[Result<StoreRecoveryReport, StoreFailure>]>([])
        let buttons = Mutex<AsyncStream<ButtonEvent>.Continuation?>(nil)
        let chipFailures = Mutex<[GPIOError?]>([nil])
        let ids = Mutex<UInt64>(0)
    }

    let scripts = Scripts()
    static let chip = "chip 'gpiochip0'"

    func id(_ n: UInt64) -> CheckInID { CheckInID(high: 0x4000, low: 0x8000_0000_0000_0000 | n) }

    func makeDependencies() -> DeviceDependencies {
        var dependencies = DeviceDependencies.failing
        dependencies.clock = makeClock()
        dependencies.newID = { [scripts] in
            scripts.ids.withLock { count in
                count += 1
                return CheckInID(high: 0x4000, low: 0x8000_0000_0000_0000 | count)
            }
        }
        dependencies.store.checkIns = checkIns.client
        dependencies.store.alerts = alerts.client
        dependencies.store.powerEvents = powerEvents.client
        dependencies.store.responders.removedWatchers = { [] }
        dependencies.store.notifications.load = {
            NotificationSnapshot(notifications: [], preferences: NotificationPreferences(), pendingChangeCount: 0)
        }
        dependencies.store.maintenance = StoreMaintenanceClient(
            probe: { [scripts] () throws(StoreFailure) in
                guard let next = scripts.probes.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                    throw StoreFailure.unexpected("probe beyond the script")
                }
                return try next.get()
            },
            recover: { [scripts] () throws(StoreFailure) in
                guard let next = scripts.recoveries.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                    throw StoreFailure.unexpected("recover beyond the script")
                }
                return try next.get()
            })
        dependencies.gpio = GPIOClient(
            chipDescription: Self.chip,
            connect: { [scripts] () throws(GPIOError) in
                if let failure = scripts.chipFailures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
                let (stream, continuation) = AsyncStream<ButtonEvent>.makeStream()
                scripts.buttons.withLock { $0 = continuation }
                return stream
            },
            failure: { nil },
            setLED: { _, _ throws(GPIOError) in throw .unexpected("setLED") },
            release: {},
            chipChanges: { nil },
            onlyAChipChangeHelps: { _ in false })
        return dependencies
    }

    /// A device offline, alerts off unless asked: the smallest configuration.
    func makeStore(alerts: Bool = false, adjust: (inout DeviceConfiguration) -> Void = { _ in }) -> TestStore<DeviceFeature> {
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.alert.enabled = alerts
        adjust(&configuration)
        let dependencies = makeDependencies()
        return TestStore(initialState: DeviceFeature.initialState(configuration, chipDescription: Self.chip),
                         reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
    }

    /// Starts the device (store probe, loads); the probe answers with `probe`.
    func start(_ store: TestStore<DeviceFeature>, probe: Result<StoreProbeReport, StoreFailure> = .success(StoreProbeReport()),
               records: [CheckInRecord] = [], phase: Phase = .neverCheckedIn) async {
        scripts.probes.withLock { $0.append(probe) }
        store.send(.started) { $0.isRunning = true }
        await store.receive(.store(.start)) {
            $0.store.isRunning = true
            $0.store.isProbing = true
        }
        await store.receive(.checkIn(.daemonStarted)) { $0.checkIn.isRunning = true }
        await store.receive(.checkIn(.loadCheckInSettings))
        await store.receive(.checkIn(.loadCheckInHistory)) { $0.checkIn.isLoadingHistory = true }
        await store.receive(.checkIn(.alert(.loadPending)))
        await store.receive(.notifications(.daemonStarted)) { $0.notifications.isRunning = true }
        await store.receive(.notifications(.loadNotifications)) { $0.notifications.isLoading = true }
        await store.receive(.power(.start)) { $0.power.isRunning = true }
        await store.receive(.responders(.onAppear)) { $0.responders?.isLoading = true }
        await store.receive(.notifications(.notificationsResponse(.success(
            NotificationSnapshot(notifications: [], preferences: NotificationPreferences(), pendingChangeCount: 0))))) {
            $0.notifications.isLoading = false
            $0.notifications.hasLoaded = true
        }
        await store.receive(.responders(.loaded(.success([])))) {
            $0.responders?.isLoading = false
            $0.responders?.isLoaded = true
        }
        await store.receive(.responders(.delegate(.refusedWatchersChanged([]))))
        await store.receive(.responders(.pollDue))

        await store.receive(.storedPingsResponse(.success([])))
        await store.receive(.store(.probeResponse(probe))) {
            $0.store.isProbing = false
            switch probe {
            case .success:
                $0.store.provenWritable = true
            case let .failure(failure):
                $0.store.problem = StoreProblem(failure, since: Self.start.wall)
                $0.store.consecutiveFailures = 1
                $0.store.nextAttempt = Self.start.wall + .seconds(1)
            }
        }
        if case .success = probe {
            await store.receive(.store(.delegate(.writable)))
            await store.receive(.checkIn(.storeWritable))
        }
        await store.receive(.checkIn(.checkInSettingsResponse(.success(checkIns.settings)))) {
            $0.checkIn.hasLoadedSettings = true
            $0.checkIn.settingsVersion = 1
        }
        await store.receive(.checkIn(.checkInHistoryResponse(.success(records)))) {
            $0.checkIn.isLoadingHistory = false
            $0.checkIn.hasLoadedHistory = true
            $0.checkIn.history = records
            $0.checkIn.phase = phase
        }
        await store.receive(.checkIn(.alert(.pendingResponse(.success([])))))
        await store.receive(.power(.runMarked(.success(nil)))) { $0.power.runMarked = true }
    }

    /// The first check-in write refused with `failure`: no acknowledgement, and the store has a
    /// problem from then on (a retry in a second).
    func receiveFirstRefusedWrite(_ store: TestStore<DeviceFeature>, _ failure: StoreFailure) async {
        await store.receive(.checkIn(.checkInResponse(.failure(failure)))) { $0.checkIn.isCheckingIn = false }
        await store.receive(.checkIn(.delegate(.checkInFailed(failure))))
        await store.receive(.store(.operationFailed(failure))) {
            $0.store.problem = StoreProblem(failure, since: Self.start.wall)
            $0.store.consecutiveFailures = 1
            $0.store.nextAttempt = Self.start.wall + .seconds(1)
        }
    }

    func stop(_ store: TestStore<DeviceFeature>) async {
        store.send(.stopping) { $0.isRunning = false }
        await store.receive(.checkIn(.daemonStopping)) { $0.checkIn.isRunning = false }
        await store.receive(.notifications(.daemonStopping)) { $0.notifications.isRunning = false }
        await store.receive(.power(.stopping)) { $0.power.isRunning = false }
        await store.receive(.store(.stop)) {
            $0.store.isRunning = false
            $0.store.nextAttempt = nil
        }
        await store.receive(.responders(.stop))
        await store.receive(.power(.runUnmarked(nil))) { $0.power.runMarked = false }
        await store.finish()
    }
}
