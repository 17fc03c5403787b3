import CheckInModels
import CheckInStoreLive
import DeviceConfig

extension DeviceConfiguration {
    /// Stores `records` at this configuration's store path before the device starts (a device that
    /// was offline), in one transaction, and closes the file again.
    func prefill(_ records: [CheckInRecord], registeringDeliveryTarget target: String? = nil) async throws {
        let database = try await CheckInDatabase.open(path: storePath)
        if let target { try await database.registerDeliveryTarget(target) }
        _ = try await database.record(all: records.map { NewCheckIn(id: $0.id, at: $0.at, source: $0.source) })
        await database.close()
    }
}
