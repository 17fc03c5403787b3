import ControlProtocol
import ControlSocket
import Glibc
import LinuxIO

/// The daemon with `[mqtt]`: idle memory and wake-ups while connected to a local Mosquitto (to
/// read next to the "idle" phase's figures for a daemon without it), and check-in round trips
/// with the broker connected and with a broker that accepts the connection but never answers.
extension Bench {
    func mqttPhase() throws {
        let folder = directory + "/mqtt"
        for path in [folder, folder + "/broker"] where mkdir(path, 0o750) != 0 && errno != EEXIST {
            throw SystemError.current("mkdir", path)
        }
        let port = try freeLoopbackPort()
        let brokerConfig = folder + "/broker/mosquitto.conf"
        // As root the broker would switch to user mosquitto, who cannot write in this folder.
        try writeFile(brokerConfig, (getuid() == 0 ? "user root\n" : "") + """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence false
            log_dest file \(folder)/broker/mosquitto.log

            """, mode: 0o600)
        let broker = try Child(executable: "/usr/sbin/mosquitto", arguments: ["-c", brokerConfig],
                               environment: ["PATH=/usr/bin:/bin"], log: folder + "/broker/out.log")
        defer { broker.stop() }
        try waitForListener(port: port, server: broker, log: folder + "/broker/out.log")

        print("## [mqtt]: connected to Mosquitto on 127.0.0.1 (keep-alive \(options.mqttKeepAlive) s)")
        let config = try DaemonConfig.write(in: folder + "/daemon", extra: mqttSection(port: port))
        let (daemon, ready) = try startDaemon(config: config, log: folder + "/daemon/daemon.log")
        try waitForMQTT("connected", config: config, log: folder + "/daemon/daemon.log")
        print("start to ready: \(milliseconds(ready)); connected, discovery and state published")
        pause(.seconds(1))
        print("resident memory (VmRSS): \(memoryLine(daemon)); threads: \(ProcFS.threadSwitches(daemon.pid).count)")
        let mappings = ProcFS.residentByMapping(daemon.pid).filter { $0.kilobytes >= 64 }
            .map { "\($0.name) \(megabytes(kilobytes: $0.kilobytes))" }
        print("by mapping: \(mappings.joined(separator: ", "))")
        _ = try request(.checkIn, config: config)
        // Past the control handler's answer timeout and the acknowledgement: steady, as in "idle".
        pause(.seconds(11))
        idle(daemon, seconds: options.idleSeconds, clock: "[mqtt] connected; \(clockState())")
        try checkIns(daemon, config: config, count: options.mqttCheckIns)
        print("SIGTERM: exit code \(daemon.stop())")
        print("")

        print("## [mqtt]: a broker that accepts the connection and never answers")
        let silent = try SilentPort()
        let hanging = try DaemonConfig.write(in: folder + "/silent", extra: mqttSection(port: silent.port))
        let (stuck, _) = try startDaemon(config: hanging, log: folder + "/silent/daemon.log")
        try waitForMQTT("connecting", config: hanging, log: folder + "/silent/daemon.log")
        try checkIns(stuck, config: hanging, count: options.mqttCheckIns)
        print("MQTT state after the check-ins: \(try request(.status, config: hanging).status?.mqtt?.state ?? "?")")
        print("SIGTERM: exit code \(stuck.stop())")
        print("")
    }

    private func mqttSection(port: UInt16) -> String {
        """

        [mqtt]
        host = "127.0.0.1"
        port = \(port)
        device_id = "bench"
        keep_alive = "\(options.mqttKeepAlive)s"
        """
    }

    private func waitForMQTT(_ state: String, config: DaemonConfig, log: String) throws {
        let start = monotonic()
        while monotonic() - start < .seconds(30) {
            if (try? request(.status, config: config))?.status?.mqtt?.state == state { return }
            pause(.milliseconds(20))
        }
        throw BenchError("the MQTT connection did not become \(state) within 30 s; see \(log)")
    }
}

/// A loopback port that accepts TCP connections (the kernel completes them) and never answers.
private final class SilentPort {
    let port: UInt16
    private let descriptor: Int32

    init() throws {
        port = try freeLoopbackPort()
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = port.bigEndian
        let listening = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && listen(descriptor, 16) == 0
            }
        }
        guard listening else { throw SystemError.current("listen", "127.0.0.1:\(port)") }
    }

    deinit {
        close(descriptor)
    }
}
