import CheckInModels
public import DeviceClock
import Glibc
import Synchronization

/// Local time through the C library over the system's tzdata, with no zone rules of our own.
///
/// glibc has no `tzalloc` (NetBSD's and tzcode's per-zone handle): its `localtime_r` follows the
/// process's `TZ`. So each answer sets `TZ` to the zone it is for (`:Europe/London`, or
/// `:/etc/localtime` for the system's zone), calls `tzset` when that changed, and reads `tm_gmtoff`
/// from `localtime_r`, all under one lock; nothing else in the daemon reads local time. `TZ` is put
/// into the environment once at start (`prepareProcess`, before any thread), so later changes only
/// replace its value and never move the environment under a thread reading another variable.
///
/// glibc skips re-reading a zone whose `TZ` text did not change, so `reload` passes through `UTC0`
/// first: the next answer reads the zone's file afresh (the system's zone replaced by
/// `timedatectl set-timezone`, or tzdata updated). A name with no zone file would silently mean UTC
/// to glibc: such a zone gives no answer (nil) instead.
extension TimeZoneClient {
    public static let live = TimeZoneClient(
        utcOffset: { zone, time in LiveTimeZone.shared.utcOffset(zone, time) },
        reload: { LiveTimeZone.shared.reload() },
        systemZoneName: { LiveTimeZone.systemZoneName() })

    /// Puts `TZ` into the environment while the process has one thread (see above).
    public static func prepareProcess() {
        LiveTimeZone.shared.prepare()
    }

    /// Whether the system's tzdata has `zone` (a file under `TZDIR` or /usr/share/zoneinfo that
    /// starts like a zone file: its `TZif` magic, not parsed further).
    public static func zoneExists(_ zone: String) -> Bool {
        LiveTimeZone.zoneFile(zone) != nil
    }
}

final class LiveTimeZone: Sendable {
    static let shared = LiveTimeZone()

    private struct State {
        /// The `TZ` text set last, and whether `tzset` has read it since.
        var current: String?
        var stale = true
    }

    private let state = Mutex(State())

    func prepare() {
        state.withLock { state in
            if getenv("TZ") == nil { setenv("TZ", Self.systemZoneValue, 1) }
            state.current = getenv("TZ").map { String(cString: $0) }
            state.stale = true
        }
    }

    func reload() {
        state.withLock { $0.stale = true }
    }

    func utcOffset(_ zone: String?, _ time: WallTime) -> Int? {
        let wanted: String
        if let zone {
            guard Self.zoneFile(zone) != nil else { return nil }
            wanted = ":" + zone
        } else {
            wanted = Self.systemZoneValue
        }
        return state.withLock { state in
            if state.stale || state.current != wanted {
                if state.stale {
                    // A TZ text glibc has not seen last, so that it reads the file again.
                    setenv("TZ", "UTC0", 1)
                    tzset()
                }
                setenv("TZ", wanted, 1)
                tzset()
                state.current = wanted
                state.stale = false
            }
            var seconds = time_t(time.microsecondsSinceEpoch.floorDivided(by: 1_000_000).quotient)
            var fields = tm()
            guard localtime_r(&seconds, &fields) != nil else { return nil }
            return Int(fields.tm_gmtoff)
        }
    }

    /// The system's zone for glibc: the file, not a name (there may be none).
    static let systemZoneValue = ":/etc/localtime"

    static var zoneDirectory: String {
        getenv("TZDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
    }

    /// The zone's file, if the name is a plain relative path to a file that starts like one.
    static func zoneFile(_ zone: String) -> String? {
        guard !zone.isEmpty, !zone.hasPrefix("/"), !zone.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
            return nil
        }
        let path = zoneDirectory + "/" + zone
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var magic = [UInt8](repeating: 0, count: 4)
        guard fread(&magic, 1, 4, file) == 4, magic == Array("TZif".utf8) else { return nil }
        return path
    }

    /// `Europe/London` from the /etc/localtime symlink (`…/zoneinfo/Europe/London`), else
    /// /etc/timezone's line; nil when neither says.
    static func systemZoneName() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if count > 0 {
            let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let marker = "zoneinfo/"
            if let offset = target.utf8Offset(of: marker) {
                let name = String(decoding: Array(target.utf8)[(offset + marker.utf8.count)...], as: UTF8.self)
                if zoneFile(name) != nil { return name }
            }
        }
        guard let file = fopen("/etc/timezone", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let name = String(decoding: line.prefix(while: { $0 != 0 && $0 != 10 && $0 != 13 && $0 != 32 }).map { UInt8(bitPattern: $0) },
                          as: UTF8.self)
        return zoneFile(name) != nil ? name : nil
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = self / divisor, remainder = self % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}
