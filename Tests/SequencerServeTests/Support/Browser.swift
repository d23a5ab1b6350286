import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A real headless Chromium, driven through the system's chromedriver by the W3C WebDriver
/// protocol (JSON over HTTP). Every host but 127.0.0.1 resolves to nothing, so a request that
/// would leave the machine fails, and the performance log lists every request the page made.
final class Browser {
    let session: String
    private let driver: Process
    private let port: Int
    /// Chromium's profile, removed by ``quit()``.
    private let profile: TemporaryDirectory

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let chromedriver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether the browser tests run: Chromium and chromedriver are installed, or CI requires
    /// them (`SEQUENCER_REQUIRE_BROWSER=1`, set by `.ci/run`), so that a missing browser fails
    /// there rather than skipping.
    static var enabled: Bool {
        (chromium != nil && chromedriver != nil) || ProcessInfo.processInfo.environment["SEQUENCER_REQUIRE_BROWSER"] == "1"
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() async throws {
        guard let chromium = Self.chromium, let chromedriver = Self.chromedriver else {
            throw Failure(description: "Chromium and chromedriver are not installed (apt install chromium chromium-driver)")
        }
        profile = try TemporaryDirectory(prefix: "chromium")
        (driver, port) = try await Self.startDriver(chromedriver)
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:loggingPrefs": ["performance": "ALL", "browser": "ALL"],
                    "goog:chromeOptions": [
                        "binary": chromium,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000",
                            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--disable-background-networking",
                            "--disable-component-update", "--disable-default-apps", "--disable-sync", "--no-first-run",
                            "--disable-features=Translate,OptimizationHints,MediaRouter", "--user-data-dir=\(profile.path)",
                        ],
                    ],
                ] as [String: Any],
            ],
        ]
        do {
            let answer = try await Self.call(port, "POST", "/session", capabilities)
            guard let value = answer as? [String: Any], let id = value["sessionId"] as? String else {
                throw Failure(description: "chromedriver gave no session: \(answer ?? "nothing")")
            }
            session = id
        } catch {
            kill(driver.processIdentifier, SIGKILL)
            throw error
        }
    }

    func quit() async {
        _ = try? await Self.call(port, "DELETE", "/session/\(session)", nil)
        // chromedriver outlives SIGTERM.
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
        profile.remove()
    }

    func go(_ url: String) async throws {
        _ = try await command("POST", "url", ["url": url])
    }

    /// Runs `script` (a function body; `arguments[0]`… are `arguments`) in the page.
    @discardableResult
    func run(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "execute/sync", ["script": script, "args": arguments])
    }

    /// Waits until `script` returns true in the page (it is asked every 50 ms).
    func wait(for what: String, limit: Duration = .seconds(20), until script: String) async throws {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if let done = try? await run(script) as? Bool, done { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "waited \(limit) for \(what)")
    }

    /// Loads `url` again and again (every 100 ms) until `script` returns true in it: a page of
    /// a run that is not there yet, or not yet in the state the test waits for.
    func open(_ url: String, limit: Duration = .seconds(20), until script: String) async throws {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            try await go(url)
            if let done = try? await run(script) as? Bool, done { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "waited \(limit) for \(url) to show what the test waits for")
    }

    func title() async throws -> String { try await command("GET", "title", nil) as? String ?? "" }

    /// The text of an open alert, or nil when there is none.
    func alertText() async -> String? {
        try? await command("GET", "alert/text", nil) as? String
    }

    /// A PNG of the window.
    func screenshot() async throws -> Data {
        guard let text = try await command("GET", "screenshot", nil) as? String, let data = Data(base64Encoded: text) else {
            throw Failure(description: "no screenshot")
        }
        return data
    }

    /// The URLs the page asked for since the last call (Chromium's performance log).
    func requestedURLs() async throws -> [String] {
        let entries = try await command("POST", "se/log", ["type": "performance"]) as? [[String: Any]] ?? []
        var urls: [String] = []
        for entry in entries {
            guard let text = entry["message"] as? String,
                  let message = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let inner = message["message"] as? [String: Any], inner["method"] as? String == "Network.requestWillBeSent",
                  let params = inner["params"] as? [String: Any], let request = params["request"] as? [String: Any],
                  let url = request["url"] as? String
            else { continue }
            urls.append(url)
        }
        return urls
    }

    /// The messages the page logged to its console (errors included) since the last call.
    func consoleMessages() async throws -> [String] {
        let entries = try await command("POST", "se/log", ["type": "browser"]) as? [[String: Any]] ?? []
        return entries.compactMap { $0["message"] as? String }
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        try await Self.call(port, method, "/session/\(session)/\(path)", body)
    }

    private static func call(_ port: Int, _ method: String, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        let answer = try await HTTPClient.request(
            port: port, method, path, headers: body == nil ? [:] : ["Content-Type": "application/json"],
            body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
        let object = try JSONSerialization.jsonObject(with: answer.body, options: [.fragmentsAllowed]) as? [String: Any]
        let value = object?["value"]
        if let error = value as? [String: Any], let kind = error["error"] as? String {
            throw Failure(description: "WebDriver \(method) \(path): \(kind): \(error["message"] as? String ?? "")")
        }
        return value is NSNull ? nil : value
    }

    /// Starts chromedriver on a free port and waits until it answers. The port is free when
    /// chosen, but another test's server may take it before chromedriver binds it (then
    /// chromedriver exits at once): such a start is tried again on another port, up to three
    /// times. A loaded machine may take seconds to start it: each start has 30.
    static func startDriver(_ chromedriver: String) async throws -> (Process, Int) {
        var problem = ""
        for _ in 0..<3 {
            // A free port: bind to 0, read it, let it go for chromedriver.
            let port = try freePort()
            let driver = Process()
            driver.executableURL = URL(fileURLWithPath: chromedriver)
            driver.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
            driver.standardOutput = FileHandle.nullDevice
            driver.standardError = FileHandle.nullDevice
            try driver.run()
            for _ in 0..<600 where driver.isRunning {
                if (try? await call(port, "GET", "/status", nil)) != nil { return (driver, port) }
                try await Task.sleep(for: .milliseconds(50))
            }
            problem += driver.isRunning ? "chromedriver did not answer on port \(port) in 30 s; " : "chromedriver exited on port \(port); "
            kill(driver.processIdentifier, SIGKILL)
            driver.waitUntilExit()
        }
        throw Failure(description: problem + "gave up after three starts")
    }

    static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "no socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "cannot bind a port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
