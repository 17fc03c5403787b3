public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// Away periods, the device's own events and the run's mark (schema v7).
extension CheckInDatabase {
    // MARK: Away periods

    /// Stores a new away period, ending a running one as `replaced` at its start, and the settings
    /// that carry it when given, in one transaction.
    public func startAway(_ period: AwayPeriod, settings: StoredSettings?) throws(StoreFailure) {
        try write("store away mode \(period.id)") { () throws(SQLiteError) in
            let replace = try connection.prepare("""
                UPDATE away_periods SET end_wall_us = ?1, end_uptime_us = ?2, end_boot_id = ?3, end_synchronized = ?4,
                    end_reason = 'replaced'
                WHERE end_reason IS NULL
                """)
            let start = period.start.truncatedToMicroseconds
            try replace.bind(.integer(start.wall.microsecondsSinceEpoch), .integer(start.uptime.wholeMicroseconds),
                             .text(start.bootID), .bool(start.wallClockSynchronized))
            try replace.step()
            let insert = try connection.prepare("""
                INSERT INTO away_periods (id, insertion_order, start_wall_us, start_uptime_us, start_boot_id, start_synchronized,
                                          duration_us, source)
                VALUES (?1, (SELECT coalesce(max(insertion_order), 0) + 1 FROM away_periods), ?2, ?3, ?4, ?5, ?6, ?7)
                """)
            try insert.bind(.text(period.id.description), .integer(start.wall.microsecondsSinceEpoch),
                            .integer(start.uptime.wholeMicroseconds), .text(start.bootID), .bool(start.wallClockSynchronized),
                            .integer(max(period.duration.wholeMicroseconds, 1)), .text(period.source.rawValue))
            try insert.step()
            if let settings { try upsertSettings(settings) }
        }
    }

    /// Stores how an away period ended, and the settings without it when given, in one transaction.
    public func endAway(_ period: AwayPeriod, settings: StoredSettings?) throws(StoreFailure) {
        guard let ended = period.ended else {
            throw StoreFailure(.other, "away period \(period.id) has not ended: nothing to store")
        }
        try write("store the end of away mode \(period.id)") { () throws(SQLiteError) in
            let update = try connection.prepare("""
                UPDATE away_periods SET end_wall_us = ?2, end_uptime_us = ?3, end_boot_id = ?4, end_synchronized = ?5,
                    end_reason = ?6
                WHERE id = ?1 AND end_reason IS NULL
                """)
            let at = ended.at.truncatedToMicroseconds
            try update.bind(.text(period.id.description), .integer(at.wall.microsecondsSinceEpoch), .integer(at.uptime.wholeMicroseconds),
                            .text(at.bootID), .bool(at.wallClockSynchronized), .text(ended.reason.rawValue))
            try update.step()
            if let settings { try upsertSettings(settings) }
        }
    }

    /// The most recent away periods, newest first.
    public func awayPeriods(limit: Int) throws(StoreFailure) -> [AwayPeriod] {
        guard limit > 0 else { return [] }
        var periods: [AwayPeriod] = []
        do throws(SQLiteError) {
            let select = try connection.prepare("""
                SELECT id, start_wall_us, start_uptime_us, start_boot_id, start_synchronized, duration_us, source,
                       end_wall_us, end_uptime_us, end_boot_id, end_synchronized, end_reason
                FROM away_periods ORDER BY insertion_order DESC LIMIT ?1
                """)
            try select.bind(.integer(Int64(clamping: limit)))
            while try select.step() {
                let idText = try select.text(at: 0), sourceText = try select.text(at: 6)
                guard let id = CheckInID(idText), let source = AwaySource(rawValue: sourceText) else {
                    throw SQLiteError(operation: "read an away period", path: path, code: .corrupt,
                                      message: "away period '\(idText)' with source '\(sourceText)' cannot be read")
                }
                let start = DeviceInstant(wall: WallTime(microsecondsSinceEpoch: try select.int64(at: 1)),
                                          uptime: .microseconds(try select.int64(at: 2)), bootID: try select.text(at: 3),
                                          wallClockSynchronized: try select.bool(at: 4))
                var period = AwayPeriod(id: id, start: start, duration: .microseconds(try select.int64(at: 5)), source: source)
                if let wall = try select.optionalInt64(at: 7), let reasonText = try select.optionalText(at: 11) {
                    guard let reason = AwayEndReason(rawValue: reasonText) else {
                        throw SQLiteError(operation: "read an away period", path: path, code: .corrupt,
                                          message: "away period \(id) ended for an unknown reason '\(reasonText)'")
                    }
                    let at = DeviceInstant(wall: WallTime(microsecondsSinceEpoch: wall),
                                           uptime: .microseconds(try select.optionalInt64(at: 8) ?? 0),
                                           bootID: try select.optionalText(at: 9) ?? "", wallClockSynchronized: (try select.optionalInt64(at: 10) ?? 0) == 1)
                    period.ended = AwayPeriod.Ending(at: at, reason: reason)
                }
                periods.append(period)
            }
        } catch {
            throw StoreFailure(error, while: "read the away periods")
        }
        return periods
    }

    // MARK: The device's own events

    /// Which delivery mark of `power_events` a target uses.
    public enum EventTarget: String, Sendable {
        case backend = "uploaded_at_us"
        case healthchecks = "healthchecks_at_us"
    }

    /// Durably stores a new event (pending for every target) and returns it as stored.
    public func recordPowerEvent(_ event: PowerEvent) throws(StoreFailure) -> PowerEvent {
        let stored = PowerEvent(id: event.id, at: event.at.truncatedToMicroseconds, kind: event.kind, detail: event.detail)
        try write("record device event \(event.id)", refusing: { error in
            guard error.code == .constraintPrimaryKey else { return nil }
            return StoreFailure(.other, "device event \(event.id) is already stored in \(path); it was not overwritten")
        }) { () throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO power_events (id, insertion_order, kind, detail, wall_time_us, uptime_us, boot_id, wall_clock_synchronized)
                VALUES (?1, (SELECT coalesce(max(insertion_order), 0) + 1 FROM power_events), ?2, ?3, ?4, ?5, ?6, ?7)
                """)
            try insert.bind(.text(stored.id.description), .text(stored.kind.rawValue), .text(stored.detail),
                            .integer(stored.at.wall.microsecondsSinceEpoch), .integer(stored.at.uptime.wholeMicroseconds),
                            .text(stored.at.bootID), .bool(stored.at.wallClockSynchronized))
            try insert.step()
        }
        return stored
    }

    /// The most recent events, newest first (or the oldest pending for `pendingFor`), with the
    /// backend's upload state.
    public func powerEvents(limit: Int, pendingFor target: EventTarget? = nil) throws(StoreFailure) -> [PowerEvent] {
        guard limit > 0 else { return [] }
        var events: [PowerEvent] = []
        do throws(SQLiteError) {
            let filter = target.map { "WHERE \($0.rawValue) IS NULL ORDER BY insertion_order ASC" } ?? "ORDER BY insertion_order DESC"
            let select = try connection.prepare("""
                SELECT id, kind, detail, wall_time_us, uptime_us, boot_id, wall_clock_synchronized, uploaded_at_us
                FROM power_events \(filter) LIMIT ?1
                """)
            try select.bind(.integer(Int64(clamping: limit)))
            while try select.step() {
                let idText = try select.text(at: 0), kindText = try select.text(at: 1)
                guard let id = CheckInID(idText), let kind = PowerEventKind(rawValue: kindText) else {
                    throw SQLiteError(operation: "read a device event", path: path, code: .corrupt,
                                      message: "device event '\(idText)' of kind '\(kindText)' cannot be read")
                }
                let at = DeviceInstant(wall: WallTime(microsecondsSinceEpoch: try select.int64(at: 3)),
                                       uptime: .microseconds(try select.int64(at: 4)), bootID: try select.text(at: 5),
                                       wallClockSynchronized: try select.bool(at: 6))
                let upload: UploadState = try select.optionalInt64(at: 7).map { .uploaded(at: WallTime(microsecondsSinceEpoch: $0)) }
                    ?? .pending
                events.append(PowerEvent(id: id, at: at, kind: kind, detail: try select.text(at: 2), upload: upload))
            }
        } catch {
            throw StoreFailure(error, while: "read the device events")
        }
        return events
    }

    /// Marks events as taken by `target`; returns how many were newly marked.
    @discardableResult
    public func markEventsDelivered(ids: [CheckInID], to target: EventTarget, at time: WallTime) throws(StoreFailure) -> Int {
        try markRowsUploaded(in: "power_events", ids: ids, at: time, noun: "device events", column: target.rawValue)
    }

    public func pendingEventCount(for target: EventTarget) throws(StoreFailure) -> Int {
        try countRows("SELECT count(*) FROM power_events WHERE \(target.rawValue) IS NULL", while: "count pending device events")
    }

    // MARK: The run's mark

    /// Marks this run as started and returns how the previous one ended (nil: none before).
    public func markRunStarted(_ now: DeviceInstant) throws(StoreFailure) -> PreviousRun? {
        try write("mark the run as started") { () throws(SQLiteError) -> PreviousRun? in
            let select = try connection.prepare("""
                SELECT started_wall_us, started_uptime_us, started_boot_id, started_synchronized, stopped_cleanly
                FROM run_mark WHERE singleton = 1
                """)
            var previous: PreviousRun?
            if try select.step() {
                previous = PreviousRun(
                    startedAt: DeviceInstant(wall: WallTime(microsecondsSinceEpoch: try select.int64(at: 0)),
                                             uptime: .microseconds(try select.int64(at: 1)), bootID: try select.text(at: 2),
                                             wallClockSynchronized: try select.bool(at: 3)),
                    stoppedCleanly: try select.bool(at: 4))
            }
            let upsert = try connection.prepare("""
                INSERT OR REPLACE INTO run_mark (singleton, started_wall_us, started_uptime_us, started_boot_id,
                                                 started_synchronized, stopped_cleanly)
                VALUES (1, ?1, ?2, ?3, ?4, 0)
                """)
            try upsert.bind(.integer(now.wall.microsecondsSinceEpoch), .integer(now.uptime.wholeMicroseconds), .text(now.bootID),
                            .bool(now.wallClockSynchronized))
            try upsert.step()
            return previous
        }
    }

    /// Marks this run as stopped cleanly (the last write of a clean stop).
    public func markRunStopped() throws(StoreFailure) {
        try write("mark the run as stopped cleanly") { () throws(SQLiteError) in
            try connection.execute("UPDATE run_mark SET stopped_cleanly = 1 WHERE singleton = 1")
        }
    }
}
