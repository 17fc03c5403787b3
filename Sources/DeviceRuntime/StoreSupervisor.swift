import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import DeviceClock
import Logging

/// Owns the check-in database and keeps trying to open it when it cannot be opened.
///
/// The daemon must stay up when the store is unavailable at start (full disk, read-only mount,
/// a file from a newer release, a state directory that cannot be created): exiting would leave the
/// LEDs dark, which says nothing. Instead the feature shows the fault, every press retries the open
/// (and is refused, never falsely acknowledged, while it fails), and a back-off loop retries on its
/// own — 1 s, 2 s, 4 s … up to `maximumBackOff` — so the device recovers when the condition clears.
actor StoreSupervisor {
    nonisolated let path: String
    private let logger: Logger
    private let sleep: @Sendable (Duration) async throws -> Void
    private var database: CheckInDatabase?
    private var retryLoop: Task<Void, Never>?
    private var onOpened: (@Sendable () async -> Void)?
    /// Set when a damaged file was moved aside and a fresh store started: the operator must know.
    nonisolated let replacedDamagedFile: String?

    static let firstBackOff = Duration.seconds(1)
    static let maximumBackOff = Duration.seconds(60)

    /// Opens the store at once; a failure is logged and kept, not thrown.
    init(path: String, logger: Logger, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.path = path
        self.logger = logger
        self.sleep = sleep
        var replaced: String?
        database = try? Self.open(path: path, logger: logger, replacedDamagedFile: &replaced)
        replacedDamagedFile = replaced
    }

    /// Opens the database; a damaged file is moved aside (never deleted) and a fresh one started,
    /// and `replacedDamagedFile` reports where the old one went.
    static func open(path: String, logger: Logger, replacedDamagedFile: inout String?) throws(StoreFailure)
        -> CheckInDatabase {
        do {
            return try CheckInDatabase.open(path: path)
        } catch where error.kind == .corrupt {
            logger.critical("\(error.message)")
            replacedDamagedFile = error.message
            do {
                return try CheckInDatabase.open(path: path)
            } catch {
                logger.critical("check-in store \(path) cannot be opened: \(error.message)")
                throw error
            }
        } catch {
            logger.critical("check-in store \(path) cannot be opened: \(error.message)")
            throw error
        }
    }

    var isOpen: Bool { database != nil }

    /// The open database, opening it now if it is not open yet (so every press is also a retry).
    func openDatabase() async throws(StoreFailure) -> CheckInDatabase {
        if let database { return database }
        var replaced: String?
        let opened = try Self.open(path: path, logger: logger, replacedDamagedFile: &replaced)
        database = opened
        retryLoop?.cancel()
        retryLoop = nil
        logger.notice("check-in store \(path) is open again")
        await onOpened?()
        return opened
    }

    /// Starts the back-off loop if the store is not open; `opened` runs once it opens (from the
    /// loop or from a press), so the feature can load its history and settings.
    func superviseOpening(opened: @escaping @Sendable () async -> Void) {
        onOpened = opened
        guard database == nil, retryLoop == nil else { return }
        retryLoop = Task { [sleep, path, logger] in
            var delay = Self.firstBackOff
            while !Task.isCancelled {
                do { try await sleep(delay) } catch { return }
                if (try? await self.openDatabase()) != nil { return }
                delay = min(delay * 2, Self.maximumBackOff)
                logger.info("will retry opening \(path) in \(DurationText.format(delay))")
            }
        }
    }

    func stop() {
        retryLoop?.cancel()
        retryLoop = nil
        onOpened = nil
    }

    /// The store interface the feature and the control handler use.
    nonisolated var client: CheckInStoreClient {
        CheckInStoreClient(
            record: { new async throws(StoreFailure) in try await self.openDatabase().record(new) },
            history: { limit async throws(StoreFailure) in try await self.openDatabase().history(limit: limit) },
            loadSettings: { () async throws(StoreFailure) in try await self.openDatabase().loadSettings() },
            saveSettings: { stored async throws(StoreFailure) in try await self.openDatabase().saveSettings(stored) },
            pendingUploadCount: { () async throws(StoreFailure) in try await self.openDatabase().pendingUploadCount() },
            reanchorWallTimes: { now async throws(StoreFailure) in try await self.openDatabase().reanchorWallTimes(now: now) },
            recordAnsweringPings: { new, responses async throws(StoreFailure) in
                try await self.openDatabase().record(new, answering: responses)
            },
            savePings: { pings async throws(StoreFailure) in try await self.openDatabase().savePings(pings) },
            pendingPings: { () async throws(StoreFailure) in try await self.openDatabase().pendingPings() }
        )
    }

    /// The alert store interface (same database, opened on first use like the check-ins').
    nonisolated var alertClient: AlertStoreClient {
        AlertStoreClient(
            record: { new async throws(StoreFailure) in try await self.openDatabase().recordAlert(new) },
            pending: { () async throws(StoreFailure) in try await self.openDatabase().pendingAlerts(limit: 100) }
        )
    }
}
