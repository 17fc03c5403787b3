/// Command-line options of lifesignal-bench.
struct Options {
    var binaries: String
    var presses = 1000
    var checkIns = 10_000
    /// Resident memory is printed after every this many check-ins (the growth curve).
    var memoryEvery = 5_000
    var idleSeconds = 60
    var readyRuns = 5
    var backlog = 100_000
    var batchSize = 500
    var statusIntervalMilliseconds: Int?
    var idleConnections = 1000
    var statusRequests = 200
    var workDirectory = "/tmp"
    /// A Python with gpiozero (scripts/bench makes one) and the reference press program it runs.
    var referencePython: String?
    var referenceScript: String?
    /// TOML appended to the daemon's config in the daemon phases (a device with more configured).
    var extraConfig: String?
    /// The mqtt phase: the daemon's [mqtt] keep_alive in seconds, and check-ins timed against each broker.
    var mqttKeepAlive = 60
    var mqttCheckIns = 1000
    static let allPhases = ["ready", "idle", "check-ins", "presses", "floor", "backlog", "uplink", "idle-connections", "mqtt", "sizes"]
    var phases = Set(Self.allPhases)

    static let usage = """
        usage: lifesignal-bench [--binaries DIR] [--presses N] [--check-ins N] [--memory-every N] [--idle-seconds S]
                                [--ready-runs N] [--backlog N] [--batch-size N] [--status-interval MS]
                                [--idle-connections N] [--status-requests N] [--work-dir DIR]
                                [--reference-python PYTHON --reference-script FILE] [--mqtt-keep-alive S] [--mqtt-check-ins N]
                                [--extra-config FILE] [--phases ready,idle,check-ins,presses,floor,backlog,uplink,idle-connections,mqtt,sizes]
          --binaries     folder with the lifesignald to measure (default: this program's folder)
          --memory-every print resident memory after every N check-ins (default 5000): the growth curve
          --backlog      rows queued for the backlog phase (default 100000); --batch-size its [uplink] batch_size;
                         --status-interval MS: ask the daemon for its queue depth every MS from the start
                         (default: only once its log shows every row acknowledged)
          --idle-connections  connections held open without a request in that phase (default 1000);
                         --status-requests N status requests timed without and with them (default 200)
          --work-dir     where the temporary store goes; must be a real disk (not tmpfs) for write figures
          --reference-python, --reference-script  the presses phase also runs this reference program
                         (scripts/reference/press-reference.py, gpiozero + sqlite3) and prints the ratios
          --phases       floor: after the presses phase's own (it needs presses), the same presses through the
                         daemon's floor, its architecture doing a press and nothing else (PressFloorFeature)
          --extra-config  TOML appended to the configuration of the daemon phases and of the presses phase
          --mqtt-keep-alive  the mqtt phase's [mqtt] keep_alive in seconds (default 60); --mqtt-check-ins N
                         check-ins timed with the broker connected and with one that never answers (default 1000)
          Set LIFESIGNAL_EXECUTOR=dispatch to measure with the runtime's Dispatch executors instead.
        """

    init(_ arguments: some Sequence<String>, ownFolder: String) throws(UsageError) {
        binaries = ownFolder
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument != "--help", argument != "-h" else { throw UsageError(Self.usage) }
            guard let value = iterator.next() else { throw UsageError("\(argument) needs a value\n\(Self.usage)") }
            func number() throws(UsageError) -> Int {
                guard let number = Int(value), number > 0 else { throw UsageError("\(argument) wants a positive whole number, not '\(value)'") }
                return number
            }
            switch argument {
            case "--binaries": binaries = value
            case "--presses": presses = try number()
            case "--check-ins": checkIns = try number()
            case "--memory-every": memoryEvery = try number()
            case "--idle-seconds": idleSeconds = try number()
            case "--ready-runs": readyRuns = try number()
            case "--backlog": backlog = try number()
            case "--batch-size": batchSize = try number()
            case "--status-interval": statusIntervalMilliseconds = try number()
            case "--idle-connections": idleConnections = try number()
            case "--status-requests": statusRequests = try number()
            case "--work-dir": workDirectory = value
            case "--reference-python": referencePython = value
            case "--reference-script": referenceScript = value
            case "--extra-config": extraConfig = value
            case "--mqtt-keep-alive": mqttKeepAlive = try number()
            case "--mqtt-check-ins": mqttCheckIns = try number()
            case "--phases": phases = Set(value.split(separator: ",").map(String.init))
            default: throw UsageError("unknown option \(argument)\n\(Self.usage)")
            }
        }
        if let unknown = phases.subtracting(Self.allPhases).sorted().first {
            throw UsageError("unknown phase '\(unknown)' (phases: \(Self.allPhases.joined(separator: ",")))")
        }
        if phases.contains("floor") && !phases.contains("presses") {
            throw UsageError("the floor phase runs after the presses phase: give --phases presses,floor")
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
