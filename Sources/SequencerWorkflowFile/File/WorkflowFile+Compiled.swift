import Foundation
import Sequencer

/// A checked workflow file in a compact binary form, so that a run of an unchanged file need
/// not parse its YAML again (the command line keeps one, keyed by the file's content hash).
///
/// The form starts with a magic number and a format number; ``init(compiled:path:)`` refuses
/// anything else, or anything damaged, and the caller parses the file instead. The file's path
/// and directory are not in it: they come from where the file is now.
extension WorkflowFile {
    /// Changes whenever the form does, so an older form is never misread; and whenever what
    /// decoding makes of a text does (4: `${needs.outputs}` is expanded, where a copy of 3 kept it).
    /// 5: a job's `cache`, `inherit-env` and `volatile`.
    static let compiledFormat: UInt32 = 5
    static let compiledMagic: UInt32 = 0x5351_4746  // "SQGF"

    /// The file in the compiled form.
    public func compiled() -> [UInt8] {
        var writer = ByteWriter()
        writer.u32(Self.compiledMagic)
        writer.u32(Self.compiledFormat)
        writer.int(version)
        writer.int(lanes.count)
        for lane in lanes {
            writer.string(lane.name)
            writer.int(lane.width)
            writer.bool(lane.ordered)
            writer.location(lane.location)
        }
        writer.variables(environment)
        writer.int(jobs.count)
        for job in jobs {
            writer.string(job.name)
            writer.location(job.location)
            writer.string(job.run)
            writer.int(job.needs.count)
            for need in job.needs {
                writer.string(need.name)
                writer.location(need.location)
            }
            writer.optionalString(job.lane)
            writer.optionalLocation(job.laneLocation)
            writer.u8(job.priority.rawValue)
            writer.bool(job.timeout != nil)
            if let timeout = job.timeout { writer.duration(timeout) }
            writer.int(job.retry.maxAttempts)
            writer.duration(job.retry.initial)
            writer.double(job.retry.multiplier)
            writer.duration(job.retry.maximum)
            writer.double(job.retry.jitter)
            writer.variables(job.environment)
            writer.optionalString(job.workingDirectory)
            writer.optionalLocation(job.workingDirectoryLocation)
            writer.paths(job.inputEntries)
            writer.paths(job.outputEntries)
            writer.paths(job.depfile.map { [$0] } ?? [])
            writer.bool(job.cache)
            writer.bool(job.inheritsEnvironment)
            writer.paths(job.volatileEntries)
            writer.string(job.definedIn)
        }
        writer.strings(includes)
        writer.int(listings.count)
        for listing in listings {
            writer.strings(listing.patterns)
            writer.strings(listing.excluded)
            writer.strings(listing.files)
        }
        writer.int(warnings.count)
        for warning in warnings {
            writer.string(warning.file)
            writer.location(warning.location)
            writer.string(warning.message)
        }
        return writer.bytes
    }

    /// The file from its compiled form, at `path`; nil when `bytes` is not a whole compiled
    /// file of this format.
    public init?(compiled bytes: [UInt8], path: String) {
        var reader = ByteReader(bytes: bytes)
        guard reader.u32() == Self.compiledMagic, reader.u32() == Self.compiledFormat,
              let decoded = Self.read(&reader, path: path), reader.isAtEnd else { return nil }
        self = decoded
    }

    private static func read(_ reader: inout ByteReader, path: String) -> WorkflowFile? {
        guard let version = reader.int(), let laneCount = reader.count() else { return nil }
        var lanes: [Lane] = []
        for _ in 0..<laneCount {
            guard let name = reader.string(), let width = reader.int(), let ordered = reader.bool(),
                  let location = reader.location() else { return nil }
            lanes.append(Lane(name: name, width: width, ordered: ordered, location: location))
        }
        guard let environment = reader.variables(), let jobCount = reader.count() else { return nil }
        var jobs: [Job] = []
        jobs.reserveCapacity(jobCount)
        for _ in 0..<jobCount {
            guard let job = readJob(&reader) else { return nil }
            jobs.append(job)
        }
        guard let includes = reader.strings(), let listingCount = reader.count() else { return nil }
        var listings: [FileListing] = []
        for _ in 0..<listingCount {
            guard let patterns = reader.strings(), let excluded = reader.strings(), let files = reader.strings() else { return nil }
            listings.append(FileListing(patterns: patterns, excluded: excluded, files: files))
        }
        guard let warningCount = reader.count() else { return nil }
        var warnings: [Diagnostic] = []
        for _ in 0..<warningCount {
            guard let file = reader.string(), let location = reader.location(), let message = reader.string() else { return nil }
            warnings.append(Diagnostic(file: file, location: location, severity: .warning, message: message))
        }
        let directory = (path as NSString).deletingLastPathComponent
        return WorkflowFile(
            path: path, directory: directory.isEmpty ? "." : directory, version: version, lanes: lanes,
            environment: environment, jobs: jobs, includes: includes, listings: listings, warnings: warnings)
    }

    private static func readJob(_ reader: inout ByteReader) -> Job? {
        guard let name = reader.string(), let location = reader.location(), let run = reader.string(),
              let needCount = reader.count() else { return nil }
        var needs: [Need] = []
        for _ in 0..<needCount {
            guard let need = reader.string(), let at = reader.location() else { return nil }
            needs.append(Need(name: need, location: at))
        }
        guard let lane = reader.optionalString(), let laneLocation = reader.optionalLocation() else { return nil }
        guard let priorityValue = reader.u8(), let priority = Priority(rawValue: priorityValue),
              let hasTimeout = reader.bool() else { return nil }
        var timeout: Duration?
        if hasTimeout {
            guard let duration = reader.duration() else { return nil }
            timeout = duration
        }
        guard let attempts = reader.int(), let initial = reader.duration(), let multiplier = reader.double(),
              let maximum = reader.duration(), let jitter = reader.double(),
              let environment = reader.variables(), let workingDirectory = reader.optionalString(),
              let workingDirectoryLocation = reader.optionalLocation(),
              let inputs = reader.paths(), let outputs = reader.paths(), let depfiles = reader.paths(), depfiles.count <= 1,
              let cache = reader.bool(), let inheritsEnvironment = reader.bool(), let volatile = reader.paths(),
              let definedIn = reader.string() else { return nil }
        let retry: RetryPolicy = attempts == 1 && initial == .zero
            ? .none : .exponential(attempts: attempts, initial: initial, multiplier: multiplier, max: maximum, jitter: jitter)
        return Job(
            name: name, location: location, run: run, needs: needs, lane: lane, laneLocation: laneLocation,
            priority: priority, timeout: timeout, retry: retry, environment: environment,
            workingDirectory: workingDirectory, workingDirectoryLocation: workingDirectoryLocation,
            inputEntries: inputs, outputEntries: outputs, depfile: depfiles.first, cache: cache,
            inheritsEnvironment: inheritsEnvironment, volatileEntries: volatile, definedIn: definedIn)
    }
}

/// Writes the compiled form: little-endian numbers, strings as a length and UTF-8.
private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func int(_ value: Int) { u64(UInt64(bitPattern: Int64(value))) }
    mutating func bool(_ value: Bool) { u8(value ? 1 : 0) }
    mutating func double(_ value: Double) { u64(value.bitPattern) }
    mutating func duration(_ value: Duration) {
        int(Int(value.components.seconds))
        int(Int(value.components.attoseconds))
    }
    mutating func location(_ value: SourceLocation) {
        int(value.line)
        int(value.column)
    }
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
    mutating func optionalString(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }
    mutating func optionalLocation(_ value: SourceLocation?) {
        bool(value != nil)
        if let value { location(value) }
    }
    mutating func paths(_ values: [WorkflowFile.PathEntry]) {
        int(values.count)
        for value in values {
            string(value.path)
            location(value.location)
        }
    }
    mutating func strings(_ values: [String]) {
        int(values.count)
        for value in values { string(value) }
    }
    mutating func variables(_ values: [String: String]) {
        int(values.count)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            string(name)
            string(value)
        }
    }
}

/// Reads the compiled form; every read is nil past the end.
private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u8() -> UInt8? { take(1)?.first }
    mutating func u32() -> UInt32? {
        take(4).map { $0.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }
    mutating func u64() -> UInt64? {
        take(8).map { $0.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    }
    mutating func int() -> Int? { u64().map { Int(Int64(bitPattern: $0)) } }
    /// A count of things that follow: at most the bytes left, so damage cannot ask for more.
    mutating func count() -> Int? {
        guard let count = int(), count >= 0, count <= bytes.count - offset else { return nil }
        return count
    }
    mutating func bool() -> Bool? {
        guard let byte = u8(), byte <= 1 else { return nil }
        return byte == 1
    }
    mutating func double() -> Double? { u64().map(Double.init(bitPattern:)) }
    mutating func duration() -> Duration? {
        guard let seconds = int(), let attoseconds = int() else { return nil }
        return Duration(secondsComponent: Int64(seconds), attosecondsComponent: Int64(attoseconds))
    }
    mutating func location() -> SourceLocation? {
        guard let line = int(), let column = int() else { return nil }
        return SourceLocation(line: line, column: column)
    }
    mutating func string() -> String? {
        guard let length = u32(), let utf8 = take(Int(length)) else { return nil }
        return String(decoding: utf8, as: UTF8.self)
    }
    mutating func optionalString() -> String?? {
        guard let present = bool() else { return nil }
        guard present else { return .some(nil) }
        guard let value = string() else { return nil }
        return .some(value)
    }
    /// An optional location: nil when damaged, `.some(nil)` when absent.
    mutating func optionalLocation() -> SourceLocation?? {
        guard let present = bool() else { return nil }
        guard present else { return .some(nil) }
        guard let value = location() else { return nil }
        return .some(value)
    }
    mutating func paths() -> [WorkflowFile.PathEntry]? {
        guard let count = count() else { return nil }
        var values: [WorkflowFile.PathEntry] = []
        for _ in 0..<count {
            guard let path = string(), let location = location() else { return nil }
            values.append(WorkflowFile.PathEntry(path: path, location: location))
        }
        return values
    }
    mutating func strings() -> [String]? {
        guard let count = count() else { return nil }
        var values: [String] = []
        for _ in 0..<count {
            guard let value = string() else { return nil }
            values.append(value)
        }
        return values
    }
    mutating func variables() -> [String: String]? {
        guard let count = count() else { return nil }
        var values: [String: String] = [:]
        for _ in 0..<count {
            guard let name = string(), let value = string() else { return nil }
            values[name] = value
        }
        return values
    }
}
