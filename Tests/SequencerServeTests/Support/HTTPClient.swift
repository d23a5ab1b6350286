import Foundation

/// HTTP/1.1 to 127.0.0.1 over a plain socket, one request per connection: what the tests say
/// to chromedriver and to the server. (Foundation's URLSession fails here on Linux with
/// "Failed writing header" from libcurl.)
enum HTTPClient {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func request(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> Answer {
        try await blocking { send(port: port, method, path, headers: headers, body: body) }.get()
    }

    private static func send(port: Int, _ method: String, _ path: String, headers: [String: String], body: Data?) -> Result<Answer, Failure> {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return .failure(Failure(description: "no socket")) }
        defer { close(socket) }
        let connected = connect(socket, port: port)
        guard connected else { return .failure(Failure(description: "cannot connect to 127.0.0.1:\(port)")) }
        var fields = headers
        let host = fields.removeValue(forKey: "Host") ?? "127.0.0.1:\(port)"
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        if let body { fields["Content-Length"] = String(body.count) }
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        var bytes = Data((head + "\r\n").utf8)
        if let body { bytes.append(body) }
        let sent = bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = Foundation.send(socket, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        guard sent else { return .failure(Failure(description: "cannot send to 127.0.0.1:\(port)")) }
        // Up to the end of the head, then as long as the body says (chromedriver keeps the
        // connection open whatever the request asks).
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        func readMore() -> Bool {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return false }
            received.append(contentsOf: buffer[0..<count])
            return true
        }
        var split = received.range(of: Data("\r\n\r\n".utf8))
        while split == nil, readMore() { split = received.range(of: Data("\r\n\r\n".utf8)) }
        guard let split else { return .failure(Failure(description: "no HTTP answer from 127.0.0.1:\(port)")) }
        let lines = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var answerHeaders: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            answerHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bodyStart = split.upperBound
        let chunked = answerHeaders["transfer-encoding"]?.lowercased() == "chunked"
        if let length = answerHeaders["content-length"].flatMap(Int.init) {
            while received.count - bodyStart < length, readMore() {}
        } else if chunked {
            while received.count == bodyStart || !received.suffix(5).elementsEqual(Data("0\r\n\r\n".utf8)), readMore() {}
        } else {
            while readMore() {}
        }
        var content = Data(received[bodyStart...])
        if chunked { content = dechunk(content) }
        return .success(Answer(status: status, headers: answerHeaders, body: content))
    }

    /// Connects `socket` to 127.0.0.1:`port`.
    static func connect(_ socket: Int32, port: Int) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func dechunk(_ data: Data) -> Data {
        var output = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let end = rest.index(start, offsetBy: size)
            output.append(rest[start..<end])
            rest = rest[rest.index(end, offsetBy: min(2, rest.distance(from: end, to: rest.endIndex)))...]
        }
        return output
    }
}

/// A GET whose answer does not end by itself (an event stream), read as it comes.
final class OpenRequest {
    private let socket: Int32
    private(set) var received = Data()

    /// Connects to 127.0.0.1:`port` and sends `GET path`. A read that waits `patience` for
    /// bytes gives up, so that a server that never answers or never closes fails the test
    /// instead of hanging it.
    init(port: Int, path: String, patience: Int = 30) throws {
        socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HTTPClient.Failure(description: "no socket") }
        var limit = timeval(tv_sec: patience, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = HTTPClient.connect(socket, port: port)
        let head = Data("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        let sent = head.withUnsafeBytes { Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) == $0.count }
        guard connected, sent else {
            Foundation.close(socket)
            throw HTTPClient.Failure(description: "cannot send GET \(path) to 127.0.0.1:\(port)")
        }
    }

    private var isOpen = true

    deinit { close() }

    /// Closes the connection, as a page that goes away does.
    func close() {
        if isOpen { Foundation.close(socket) }
        isOpen = false
    }

    /// Reads until what was received contains `text` (true), or the connection ended or went
    /// quiet for longer than its patience (false).
    func read(until text: String) async -> Bool {
        let marker = Data(text.utf8)
        while received.range(of: marker) == nil {
            guard await readMore() == .bytes else { return false }
        }
        return true
    }

    /// Reads until the server closes the connection (true), or gives up (false) when it stays
    /// quiet for longer than its patience or still sends after `limit` (an event stream's
    /// heartbeats never go quiet).
    func readToEnd(within limit: Duration = .seconds(60)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        var read = Read.bytes
        while read == .bytes, clock.now < deadline { read = await readMore() }
        return read == .closed
    }

    private enum Read { case bytes, closed, quiet }

    private func readMore() async -> Read {
        let socket = self.socket
        let (bytes, read) = await blocking { () -> ([UInt8], Read) in
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 { return (Array(buffer[0..<count]), .bytes) }
            return ([], count == 0 ? .closed : .quiet)
        }
        received.append(contentsOf: bytes)
        return read
    }
}
