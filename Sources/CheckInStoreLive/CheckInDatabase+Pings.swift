public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// Responders' pings and the user's answers: pings are kept until a press answers them (a restart
/// still shows them); answers are queued and uploaded like check-ins.
extension CheckInDatabase {
    /// Stores pings received from the backend (ones already known, answered or not, are left alone)
    /// and returns every ping still pending, oldest first.
    public func savePings(_ pings: [PendingPing]) throws(StoreFailure) -> [PendingPing] {
        try write("save \(pings.count) pings") { () throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO pings (id, arrival_order, responder_id, responder_name, created_at)
                VALUES (?1, (SELECT coalesce(max(arrival_order), 0) + 1 FROM pings), ?2, ?3, ?4)
                ON CONFLICT (id) DO NOTHING
                """)
            for ping in pings {
                try insert.bind(.text(ping.id), .text(ping.responderID), .text(ping.responderName), .text(ping.createdAt))
                try insert.step()
            }
        }
        return try pendingPings()
    }

    /// Removes pings withdrawn by whoever raised them; a ping already answered stays with its answer.
    public func withdrawPings(ids: [String]) throws(StoreFailure) {
        try write("withdraw \(ids.count) pings") { () throws(SQLiteError) in
            let delete = try connection.prepare("DELETE FROM pings WHERE id = ?1 AND answered_by_check_in IS NULL")
            for id in ids {
                try delete.bind(.text(id))
                try delete.step()
            }
        }
    }

    /// The pings no press has answered yet, oldest first.
    public func pendingPings() throws(StoreFailure) -> [PendingPing] {
        do throws(SQLiteError) {
            let select = try connection.prepare("""
                SELECT id, responder_id, responder_name, created_at FROM pings
                WHERE answered_by_check_in IS NULL ORDER BY arrival_order
                """)
            var pings: [PendingPing] = []
            while try select.step() {
                pings.append(PendingPing(id: try select.text(at: 0), responderID: try select.text(at: 1),
                                         responderName: try select.text(at: 2), createdAt: try select.text(at: 3)))
            }
            return pings
        } catch {
            throw StoreFailure(error, while: "read the pending pings")
        }
    }

    /// Inside the check-in's transaction: queue each response and mark its ping answered. The answer
    /// to a ping raised on the device itself has no backend to go to: it is stored as delivered.
    func insertResponses(_ responses: [PingResponse]) throws(SQLiteError) {
        guard !responses.isEmpty else { return }
        let insert = try connection.prepare("""
            INSERT INTO ping_responses (id, insertion_order, ping_id, check_in_id, wall_time_us, uploaded_at_us)
            VALUES (?1, (SELECT coalesce(max(insertion_order), 0) + 1 FROM ping_responses), ?2, ?3, ?4, ?5)
            """)
        let answer = try connection.prepare("UPDATE pings SET answered_by_check_in = ?2 WHERE id = ?1")
        for response in responses {
            let at = SQLiteValue.integer(response.at.microsecondsSinceEpoch)
            try insert.bind(.text(response.id.description), .text(response.pingID), .text(response.checkInID.description),
                            at, response.isLocal ? at : .null)
            try insert.step()
            try answer.bind(.text(response.pingID), .text(response.checkInID.description))
            try answer.step()
        }
    }

    /// Responses not yet acknowledged by the backend, oldest first: the response uploader's queue.
    public func pendingPingResponses(limit: Int) throws(StoreFailure) -> [PingResponse] {
        guard limit > 0 else { return [] }
        do throws(SQLiteError) {
            let select = try connection.prepare("""
                SELECT id, ping_id, check_in_id, wall_time_us FROM ping_responses WHERE uploaded_at_us IS NULL
                ORDER BY insertion_order ASC LIMIT ?1
                """)
            try select.bind(.integer(Int64(clamping: limit)))
            var responses: [PingResponse] = []
            while try select.step() {
                let idText = try select.text(at: 0), checkInText = try select.text(at: 2)
                guard let id = CheckInID(idText), let checkInID = CheckInID(checkInText) else {
                    throw SQLiteError(operation: "read a ping response", path: path, code: .corrupt,
                                      message: "ping response \(idText) has an id or check-in id that is not a UUID")
                }
                responses.append(PingResponse(id: id, pingID: try select.text(at: 1), checkInID: checkInID,
                                              at: WallTime(microsecondsSinceEpoch: try select.int64(at: 3))))
            }
            return responses
        } catch {
            throw StoreFailure(error, while: "read the pending ping responses")
        }
    }

    /// Marks responses as acknowledged by the backend (one transaction); returns how many were newly marked.
    @discardableResult
    public func markPingResponsesUploaded(ids: [CheckInID], at time: WallTime) throws(StoreFailure) -> Int {
        try markRowsUploaded(in: "ping_responses", ids: ids, at: time, noun: "ping responses")
    }

    public func pendingPingResponseCount() throws(StoreFailure) -> Int {
        try countRows("SELECT count(*) FROM ping_responses WHERE uploaded_at_us IS NULL", while: "count pending ping responses")
    }
}
