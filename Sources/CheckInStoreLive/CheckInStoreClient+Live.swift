public import CheckInStoreClient

extension CheckInDatabase {
    /// The store interface the rest of the device uses, backed by this database.
    public nonisolated var client: CheckInStoreClient {
        CheckInStoreClient(
            record: { new async throws(StoreFailure) in try await self.record(new) },
            history: { limit async throws(StoreFailure) in try await self.history(limit: limit) },
            loadSettings: { () async throws(StoreFailure) in try await self.loadSettings() },
            saveSettings: { stored async throws(StoreFailure) in try await self.saveSettings(stored) },
            pendingUploadCount: { () async throws(StoreFailure) in try await self.pendingUploadCount() },
            reanchorWallTimes: { now async throws(StoreFailure) in try await self.reanchorWallTimes(now: now) },
            recordAnsweringPings: { new, responses async throws(StoreFailure) in try await self.record(new, answering: responses) },
            savePings: { pings async throws(StoreFailure) in try await self.savePings(pings) },
            pendingPings: { () async throws(StoreFailure) in try await self.pendingPings() },
            startAway: { period, settings async throws(StoreFailure) in try await self.startAway(period, settings: settings) },
            endAway: { period, settings async throws(StoreFailure) in try await self.endAway(period, settings: settings) },
            awayPeriods: { limit async throws(StoreFailure) in try await self.awayPeriods(limit: limit) }
        )
    }
}

extension CheckInStoreClient {
    /// The live store over an opened `CheckInDatabase`.
    public static func live(_ database: CheckInDatabase) -> CheckInStoreClient {
        database.client
    }
}
