public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// Events for the MQTT broker (schema v6): appended when they happen, read oldest first, and
/// deleted once the broker has acknowledged them.
///
/// Their commits skip the fsync (`unsynced`): an event is a courtesy to the home's automations,
/// the check-in or alert it tells of is durable on its own, and the next synced commit makes the
/// event durable too. A press is never held up by one.
extension CheckInDatabase {
    /// The most events kept while the broker is away; the oldest go first beyond it.
    public static let deviceEventLimit = 10_000

    public func appendDeviceEvent(_ event: DeviceEvent) throws(StoreFailure) {
        try write("store the \(event.entity) event \(event.id)", unsynced: true) { () throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO mqtt_events (id, entity, payload, at_us) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (id) DO NOTHING
                """)
            try insert.bind(.text(event.id.description), .text(event.entity), .text(event.payload),
                            .integer(event.at.microsecondsSinceEpoch))
            try insert.step()
            let trim = try connection.prepare("""
                DELETE FROM mqtt_events WHERE sequence <= (SELECT max(sequence) FROM mqtt_events) - ?1
                """)
            try trim.bind(.integer(Int64(Self.deviceEventLimit)))
            try trim.step()
        }
    }

    /// The events the broker has not acknowledged yet, oldest first.
    public func pendingDeviceEvents(limit: Int) throws(StoreFailure) -> [DeviceEvent] {
        guard limit > 0 else { return [] }
        do throws(SQLiteError) {
            let select = try connection.prepare("SELECT id, entity, payload, at_us FROM mqtt_events ORDER BY sequence LIMIT ?1")
            try select.bind(.integer(Int64(clamping: limit)))
            var events: [DeviceEvent] = []
            while try select.step() {
                let idText = try select.text(at: 0)
                guard let id = CheckInID(idText) else {
                    throw SQLiteError(operation: "read an MQTT event", path: path, code: .corrupt,
                                      message: "MQTT event \(idText) has an id that is not a UUID")
                }
                events.append(DeviceEvent(id: id, entity: try select.text(at: 1), payload: try select.text(at: 2),
                                          at: WallTime(microsecondsSinceEpoch: try select.int64(at: 3))))
            }
            return events
        } catch {
            throw StoreFailure(error, while: "read the MQTT events waiting for the broker")
        }
    }

    /// Removes the events the broker acknowledged; returns how many there were.
    @discardableResult
    public func removeDeviceEvents(ids: [CheckInID]) throws(StoreFailure) -> Int {
        try write("remove \(ids.count) published MQTT events", unsynced: true) { () throws(SQLiteError) -> Int in
            let delete = try connection.prepare("DELETE FROM mqtt_events WHERE id = ?1")
            var removed = 0
            for id in ids {
                try delete.bind(.text(id.description))
                try delete.step()
                removed += connection.changes
            }
            return removed
        }
    }

    public func deviceEventCount() throws(StoreFailure) -> Int {
        try countRows("SELECT count(*) FROM mqtt_events", while: "count the MQTT events waiting for the broker")
    }
}
