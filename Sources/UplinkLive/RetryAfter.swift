import CheckInModels
import Glibc

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date in the preferred IMF-fixdate
/// form (`Sun, 06 Nov 1994 08:49:37 GMT`), turned into a wait from `now`. Nil when unreadable.
enum RetryAfter {
    static func parse(_ value: String, now: WallTime) -> Duration? {
        let text = value.trimmingCharacters(in: " \t")
        if let seconds = Int64(text) { return .seconds(max(seconds, 0)) }
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]),
              parts[4].count == 8
        else { return nil }
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        guard let date = WallTime(iso8601: "\(year)-\(two(month + 1))-\(two(day))T\(parts[4])Z") else { return nil }
        return max(date - now, .zero)
    }

    /// The wall clock now (a date-form Retry-After is only as good as the device's clock).
    static func wallNow() -> WallTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return WallTime(microsecondsSinceEpoch: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
    }
}
