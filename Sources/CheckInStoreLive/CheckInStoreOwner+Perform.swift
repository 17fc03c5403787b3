public import CheckInStoreClient

extension CheckInStoreOwner {
    /// Runs `body` on the store thread with the open database, opening it first if it is not
    /// open: a caller on another thread makes one hop here and one back, whatever `body` does.
    public func perform<T: Sendable>(
        _ body: @Sendable (isolated CheckInDatabase) throws(StoreFailure) -> T
    ) throws(StoreFailure) -> T {
        let database = try open()
        // The owner and its database share the store thread's executor.
        return try database.assumeIsolated { database in
            Result { () throws(StoreFailure) -> T in try body(database) }
        }.get()
    }

    /// `probe()` for the device's store health, with where a damaged file found when the store
    /// was opened went (whoever opened it), for the operator.
    public func probeReportingReplacement() async throws(StoreFailure) -> String? {
        try await probe()
        return takeReplacementNotice()
    }
}
