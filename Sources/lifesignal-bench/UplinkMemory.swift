import ControlProtocol
import ControlSocket
import Glibc
import LinuxIO

/// Resident memory of an idle daemon whose uplink has been used: once over plain HTTP to
/// lifesignal-devserver, once over HTTPS to `openssl s_server` with a self-signed certificate (the
/// upload fails certificate verification, as it must, but only after OpenSSL has loaded the system
/// CA store and done a handshake: the memory of a device with its HTTPS uplink active).
struct UplinkMemory {
    let directory: String
    let binaries: String

    func run() throws {
        print("## Resident memory with the uplink active")
        for path in [directory, directory + "/http", directory + "/https"] where mkdir(path, 0o750) != 0 && errno != EEXIST {
            throw SystemError.current("mkdir", path)
        }
        let tokenPath = directory + "/token"
        try writeFile(tokenPath, BacklogBenchmark.token + "\n", mode: 0o600)

        let httpPort = try freeLoopbackPort()
        let devserver = try Child(
            executable: binaries + "/lifesignal-devserver",
            arguments: ["--port", "\(httpPort)", "--database", directory + "/http/server.sqlite",
                        "--token", "\(BacklogBenchmark.deviceID)=\(BacklogBenchmark.token)"],
            environment: ["PATH=/usr/bin:/bin"], log: directory + "/http/server.log")
        defer { devserver.stop() }
        try waitForListener(port: httpPort, server: devserver, log: directory + "/http/server.log")
        try measure("HTTP to lifesignal-devserver, after one upload", folder: directory + "/http",
                    url: "http://127.0.0.1:\(httpPort)", tokenPath: tokenPath)

        let key = directory + "/https/key.pem", certificate = directory + "/https/cert.pem"
        let made = try Child(executable: "/usr/bin/openssl", arguments: [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
            "-subj", "/CN=127.0.0.1",
        ], environment: ["PATH=/usr/bin:/bin"], log: directory + "/https/openssl.log").wait()
        guard made == 0 else { throw BenchError("openssl req failed (\(made)); see \(directory)/https/openssl.log") }
        let httpsPort = try freeLoopbackPort()
        let tlsServer = try Child(executable: "/usr/bin/openssl", arguments: [
            "s_server", "-accept", "\(httpsPort)", "-cert", certificate, "-key", key, "-www", "-quiet",
        ], environment: ["PATH=/usr/bin:/bin"], log: directory + "/https/s_server.log")
        defer { tlsServer.stop() }
        try waitForListener(port: httpsPort, server: tlsServer, log: directory + "/https/s_server.log")
        try measure("HTTPS (TLS handshake, system CA store loaded; the self-signed certificate is refused)",
                    folder: directory + "/https", url: "https://127.0.0.1:\(httpsPort)", tokenPath: tokenPath)
        print("")
    }

    private func measure(_ title: String, folder: String, url: String, tokenPath: String) throws {
        let config = try DaemonConfig.write(in: folder + "/daemon", extra: """

            [uplink]
            url = "\(url)"
            token_file = "\(tokenPath)"
            """)
        let status = ControlCoding.encode(ControlRequest(.status))
        let daemon = try Child(executable: binaries + "/lifesignald", arguments: ["--config", config.path],
                               environment: daemonEnvironment(), log: folder + "/daemon.log")
        defer { daemon.stop() }
        var report: StatusReport?
        let start = monotonic()
        var checkedIn = false
        while monotonic() - start < .seconds(30) {
            if let line = try? ControlClient.send(status, to: config.socket, timeout: .seconds(5)),
               case let .success(response) = ControlCoding.decode(ControlResponse.self, from: line) {
                if !checkedIn {
                    _ = try ControlClient.send(ControlCoding.encode(ControlRequest(.checkIn)), to: config.socket, timeout: .seconds(10))
                    checkedIn = true
                } else if let uplink = response.status?.uplink, uplink.lastAttempt != nil, uplink.state != "uploading" {
                    report = response.status
                    break
                }
            }
            pause(.milliseconds(50))
        }
        guard let report else { throw BenchError("no upload attempt within 30 s; see \(folder)/daemon.log") }
        // Past the control handler's answer timeout and the acknowledgement pattern: steady again.
        pause(.seconds(11))
        let rss = ProcFS.residentKilobytes(daemon.pid) ?? -1
        print("\(title): \(megabytes(kilobytes: rss)) (\(ProcFS.residentBreakdown(daemon.pid))); "
              + "upload: \(report.uplink?.lastResult ?? "?")\(report.uplink?.lastMessage.map { " (\($0))" } ?? ""); "
              + "threads: \(ProcFS.threadSwitches(daemon.pid).count)")
        print("  by mapping: \(ProcFS.residentByMapping(daemon.pid).filter { $0.kilobytes >= 64 }.map { "\($0.name) \($0.kilobytes) KiB" }.joined(separator: ", "))")
    }
}

/// The daemon's environment: a plain PATH, plus the bench's own LIFESIGNAL_EXECUTOR and
/// GLIBC_TUNABLES (to measure, e.g., `glibc.malloc.arena_max=1` without a rebuild), and
/// BENCH_DAEMON_LD_PRELOAD as the daemon's LD_PRELOAD (`libcurl.so.4`: the daemon as it was when it
/// linked libcurl, for the "before" figure; not LD_PRELOAD itself, which would reach the build too).
func daemonEnvironment() -> [String] {
    var environment = ["PATH=/usr/bin:/bin"]
    for name in ["LIFESIGNAL_EXECUTOR", "GLIBC_TUNABLES"] {
        if let value = getenv(name) { environment.append("\(name)=\(String(cString: value))") }
    }
    if let preload = getenv("BENCH_DAEMON_LD_PRELOAD") { environment.append("LD_PRELOAD=\(String(cString: preload))") }
    return environment
}
