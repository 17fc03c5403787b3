import CheckInModels
import Synchronization
import CheckInStoreClient
public import CheckInStoreLive
public import DeviceFeature

extension StoreClients {
    /// Every part of the device's view of the store, over the one store owner: each call runs on
    /// the store thread (one hop there, one back) and opens the database first if it is not open,
    /// so a store that could not be opened is retried by whatever touches it next.
    public static func live(_ owner: CheckInStoreOwner) -> StoreClients {
        var clients = StoreClients(
            checkIns: CheckInStoreClient(
                record: { new throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.record(new) } },
                history: { limit throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.history(limit: limit) } },
                loadSettings: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.loadSettings() } },
                saveSettings: { stored throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.saveSettings(stored) } },
                pendingUploadCount: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingUploadCount() } },
                reanchorWallTimes: { now throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.reanchorWallTimes(now: now) } },
                recordAnsweringPings: { new, responses throws(StoreFailure) in
                    try await owner.perform { database throws(StoreFailure) in try database.record(new, answering: responses) }
                },
                savePings: { pings throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.savePings(pings) } },
                pendingPings: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingPings() } },
                startAway: { period, settings throws(StoreFailure) in
                    try await owner.perform { database throws(StoreFailure) in try database.startAway(period, settings: settings) }
                },
                endAway: { period, settings throws(StoreFailure) in
                    try await owner.perform { database throws(StoreFailure) in try database.endAway(period, settings: settings) }
                },
                awayPeriods: { limit throws(StoreFailure) in
                    try await owner.perform { database throws(StoreFailure) in try database.awayPeriods(limit: limit) }
                },
                withdrawPings: { ids throws(StoreFailure) in
                    try await owner.perform { database throws(StoreFailure) in try database.withdrawPings(ids: ids) }
                }),
            alerts: AlertStoreClient(
                record: { new throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.recordAlert(new) } },
                // "Sending" until any target took it (the backend, the alert check).
                pending: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.undeliveredAlerts(limit: 100) } }),
            notifications: .live(opening: { () throws(StoreFailure) in try await owner.open() }),
            maintenance: StoreMaintenanceClient(
                probe: { () throws(StoreFailure) in
                    StoreProbeReport(replacedDamagedFile: try await owner.probeReportingReplacement())
                },
                recover: { () throws(StoreFailure) in
                    let recovery = try await owner.recover()
                    return StoreRecoveryReport(summary: recovery.description, rowsRecovered: recovery.copiedRowCount)
                }),
            checkInQueue: UploadQueueClient(
                pending: { limit throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingCheckIns(limit: limit) } },
                markUploaded: { ids, time throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.markUploaded(ids: ids, at: time) } },
                depth: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingUploadCount() } },
                markRefused: { items throws(StoreFailure) in
                    try await owner.perform { database throws(StoreFailure) in try database.markUploadRefused(items.map { (id: $0.id, message: $0.message) }) }
                },
                refused: { limit throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.refusedUploads(limit: limit) } },
                refusedCount: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.refusedUploadCount() } }),
            alertQueue: UploadQueueClient(
                pending: { limit throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingAlerts(limit: limit) } },
                markUploaded: { ids, time throws(StoreFailure) in
                    try await owner.perform { database throws(StoreFailure) in try database.markAlertsUploaded(ids: ids, at: time) }
                },
                depth: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingAlertCount() } },
                // A help alert is taken or not as a whole: the backend never refuses one by id.
                markRefused: { _ in 0 },
                refused: { _ in [] },
                refusedCount: { 0 }),
            pingResponseQueue: UploadQueueClient(
                pending: { limit throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingPingResponses(limit: limit) } },
                markUploaded: { ids, time throws(StoreFailure) in
                    try await owner.perform { database throws(StoreFailure) in try database.markPingResponsesUploaded(ids: ids, at: time) }
                },
                depth: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingPingResponseCount() } },
                // Answers to pings are taken or not as a whole, like alerts.
                markRefused: { _ in 0 },
                refused: { _ in [] },
                refusedCount: { 0 }),
            healthchecksQueue: .deliveries(to: healthchecksTarget, owner),
            healthchecksAlertQueue: .alertDeliveries(to: healthchecksAlertTarget, owner))
        clients.deviceEvents = DeviceEventStoreClient(append: { event throws(StoreFailure) in
            try await owner.perform { database throws(StoreFailure) in try database.appendDeviceEvent(event) }
        })
        clients.deviceEventQueue = UploadQueueClient(
            pending: { limit throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingDeviceEvents(limit: limit) } },
            markUploaded: { ids, _ throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.removeDeviceEvents(ids: ids) }
            },
            depth: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.deviceEventCount() } },
            // The broker takes a message or not: nothing is refused by id.
            markRefused: { _ in 0 },
            refused: { _ in [] },
            refusedCount: { 0 })
        return clients.withPowerEvents(owner)
    }

    /// The device's own power events, their queues and the run's mark.
    func withPowerEvents(_ owner: CheckInStoreOwner) -> StoreClients {
        var clients = self
        clients.powerEvents = PowerEventStoreClient(
            record: { event throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.recordPowerEvent(event) } },
            recent: { limit throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.powerEvents(limit: limit) } },
            markRunStarted: { now throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.markRunStarted(now) }
            },
            markRunStopped: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.markRunStopped() } })
        clients.powerEventQueue = .powerEvents(to: .backend, owner)
        clients.healthchecksPowerEventQueue = .powerEvents(to: .healthchecks, owner)
        return clients.withDependents(owner)
    }

    /// A watcher's dependents added by code and its sort option; the person's removed watchers.
    func withDependents(_ owner: CheckInStoreOwner) -> StoreClients {
        var clients = self
        clients.dependents = DependentStoreClient(
            load: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.storedDependents() } },
            add: { entry throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.addDependent(entry) } },
            remove: { name throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.removeDependent(named: name) }
            },
            saveSortOption: { option throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.saveDependentsSortOption(option) }
            })
        clients.responders = ResponderStoreClient(
            removedWatchers: { () throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.removedWatchers() }
            },
            removeWatcher: { watcher throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.removeWatcher(watcher) }
            },
            allowWatcher: { id throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.allowWatcher(id: id) }
            })
        return clients
    }

    /// The delivery target name of the healthchecks check-in check in the store.
    public static let healthchecksTarget = "healthchecks"
    /// The delivery target name of the healthchecks alert check in the store.
    public static let healthchecksAlertTarget = "healthchecks-alert"
}

extension UploadQueueClient where Item == CheckInRecord {
    /// The check-ins still to be delivered to a further `target` (a healthchecks check), each
    /// target with its own state. The target is registered on first use (idempotent), so it starts
    /// with the check-ins recorded from then on.
    static func deliveries(to target: String, _ owner: CheckInStoreOwner) -> UploadQueueClient {
        let registered = TargetRegistration(owner) { database throws(StoreFailure) in try database.registerDeliveryTarget(target) }
        return UploadQueueClient(
            pending: { limit throws(StoreFailure) in try await registered.perform { database throws(StoreFailure) in try database.pendingDeliveries(target: target, limit: limit) } },
            markUploaded: { ids, time throws(StoreFailure) in
                try await registered.perform { database throws(StoreFailure) in try database.markDelivered(target: target, ids: ids, at: time) }
            },
            depth: { () throws(StoreFailure) in try await registered.perform { database throws(StoreFailure) in try database.pendingDeliveryCount(target: target) } },
            markRefused: { items throws(StoreFailure) in
                try await registered.perform { database throws(StoreFailure) in try database.markDeliveryRefused(target: target, items.map { (id: $0.id, message: $0.message) }) }
            },
            refused: { limit throws(StoreFailure) in try await registered.perform { database throws(StoreFailure) in try database.refusedDeliveries(target: target, limit: limit) } },
            refusedCount: { () throws(StoreFailure) in
                try await registered.perform { database throws(StoreFailure) in try database.refusedDeliveries(target: target, limit: .max).count }
            },
            marks: { ids throws(StoreFailure) in
                try await registered.perform { database throws(StoreFailure) in try database.deliveryMarks(target: target, ids: ids) }
            })
    }
}

extension UploadQueueClient where Item == AlertRecord {
    /// The help alerts still to be delivered to a further `target` (a healthchecks alert check).
    /// The target is registered on first use (idempotent): it starts with the alerts nobody took.
    static func alertDeliveries(to target: String, _ owner: CheckInStoreOwner) -> UploadQueueClient {
        let registered = TargetRegistration(owner) { database throws(StoreFailure) in
            try database.registerAlertDeliveryTarget(target)
        }
        return UploadQueueClient(
            pending: { limit throws(StoreFailure) in
                try await registered.perform { database throws(StoreFailure) in try database.pendingAlertDeliveries(target: target, limit: limit) }
            },
            markUploaded: { ids, time throws(StoreFailure) in
                try await registered.perform { database throws(StoreFailure) in try database.markAlertsDelivered(target: target, ids: ids, at: time) }
            },
            depth: { () throws(StoreFailure) in
                try await registered.perform { database throws(StoreFailure) in try database.pendingAlertDeliveryCount(target: target) }
            },
            // A help alert is taken or not as a whole: never refused by id.
            markRefused: { _ in 0 },
            refused: { _ in [] },
            refusedCount: { 0 })
    }
}

/// The store calls of a further delivery target, with the target registered before the first of
/// them in this run: registering writes (and syncs), and it is idempotent, so once per run is enough.
final class TargetRegistration: Sendable {
    private let owner: CheckInStoreOwner
    private let register: @Sendable (isolated CheckInDatabase) throws(StoreFailure) -> Void
    private let isRegistered = Mutex(false)

    init(_ owner: CheckInStoreOwner, register: @escaping @Sendable (isolated CheckInDatabase) throws(StoreFailure) -> Void) {
        self.owner = owner
        self.register = register
    }

    func perform<T: Sendable>(
        _ body: @escaping @Sendable (isolated CheckInDatabase) throws(StoreFailure) -> T
    ) async throws(StoreFailure) -> T {
        let needed = !isRegistered.withLock { $0 }
        return try await owner.perform { [self] database throws(StoreFailure) in
            if needed {
                try register(database)
                isRegistered.withLock { $0 = true }
            }
            return try body(database)
        }
    }
}

extension UploadQueueClient where Item == PowerEvent {
    /// The device's events still to be delivered to `target`; an event is taken or not as a whole.
    static func powerEvents(to target: CheckInDatabase.EventTarget, _ owner: CheckInStoreOwner) -> UploadQueueClient {
        UploadQueueClient(
            pending: { limit throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.powerEvents(limit: limit, pendingFor: target) }
            },
            markUploaded: { ids, time throws(StoreFailure) in
                try await owner.perform { database throws(StoreFailure) in try database.markEventsDelivered(ids: ids, to: target, at: time) }
            },
            depth: { () throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.pendingEventCount(for: target) } },
            markRefused: { _ in 0 },
            refused: { _ in [] },
            refusedCount: { 0 })
    }
}
