import Testing
@testable import SequencerWorkflowFile

private typealias SourceLocation = SequencerWorkflowFile.SourceLocation

@Suite struct ParseDurationTests {
    @Test(arguments: [
        ("0s", Duration.zero),
        ("10s", .seconds(10)),
        ("500ms", .milliseconds(500)),
        ("1.5s", .milliseconds(1500)),
        (".5s", .milliseconds(500)),
        ("1h30m", .seconds(5400)),
        ("2m", .seconds(120)),
        ("250us", .microseconds(250)),
        ("3\u{B5}s", .microseconds(3)),
        ("3\u{3BC}s", .microseconds(3)),
        ("1500ns", .nanoseconds(1500)),
        ("1h2m3s4ms5us6ns", .seconds(3723) + .milliseconds(4) + .microseconds(5) + .nanoseconds(6)),
        ("30m1h", .seconds(5400)),
        ("0.1ns", .zero),
    ])
    func good(_ text: String, _ expected: Duration) throws {
        #expect(try DurationSyntax.parse(text) == expected)
    }

    /// Bad durations: the offset (in Unicode scalars) of what is wrong, and a part of the message.
    @Test(arguments: [
        ("", 0, "empty duration"),
        ("10", 0, "'10' has no unit; write 10s"),
        ("1h30", 2, "'30' has no unit"),
        ("10 s", 2, "a duration has no spaces; write '10s'"),
        (" 10s", 0, "a duration has no spaces"),
        ("1h 30m", 2, "write '1h30m'"),
        ("-1s", 0, "a duration cannot be negative"),
        ("1h-5m", 2, "cannot be negative"),
        ("1h30x", 4, "unknown unit 'x'"),
        ("10sec", 2, "unknown unit 'sec'; did you mean 's'?"),
        ("5mins", 1, "did you mean 'm'?"),
        ("2hours", 1, "did you mean 'h'?"),
        ("3MS", 1, "unknown unit 'MS'; did you mean 'ms'?"),
        ("7d", 1, "unknown unit 'd' (units: ns, us, ms, s, m or h)"),
        ("1.5.2s", 0, "'1.5.2' is not a number"),
        ("1s.", 2, "'.' is not a number"),
        ("s", 0, "expected a number at 's'"),
        ("ten seconds", 0, "expected a number at 't'"),
        ("10,5s", 2, "expected a unit (ns, us, ms, s, m or h) after 10, found ','"),
        ("1e3s", 1, "unknown unit 'e'"),
        ("é5s", 0, "expected a number at 'é'"),
        ("5分", 1, "unknown unit '分'"),
        ("e\u{301}5s", 0, "expected a number"),
        ("1\u{301}s", 1, "expected a unit"),
        ("99999999999h", 0, "duration too long"),
        ("1" + String(repeating: "0", count: 400) + "s", 0, "duration too long"),
    ])
    func bad(_ text: String, _ offset: Int, _ message: String) {
        #expect {
            try DurationSyntax.parse(text)
        } throws: { error in
            guard let problem = error as? DurationSyntax.Problem else { return false }
            return problem.offset == offset && problem.message.contains(message)
        }
    }

    @Test(arguments: ["10s", "1h30m", "200ms", "1.5s", "250us", "45ns", "2h", "90s", "0.5ms"])
    func writtenBackReadsTheSame(_ text: String) throws {
        let duration = try DurationSyntax.parse(text)
        #expect(try DurationSyntax.parse(duration.workflowDescription) == duration)
    }
}

@Suite struct ParseSuggestionTests {
    @Test(arguments: [
        ("neds", ["run", "needs", "lane"], "needs"),
        ("Run", ["run", "needs"], "run"),
        ("timout", ["timeout", "retry"], "timeout"),
        ("tiemout", ["timeout", "retry"], "timeout"),       // a swap is one edit
        ("max_backoff", ["backoff", "max-backoff"], "max-backoff"),
        ("compile-mian", ["compile-main", "compile-util"], "compile-main"),
        ("netwrk", ["network", "disk"], "network"),
        ("ビルド", ["ビルド2", "テスト"], "ビルド2"),
    ] as [(String, [String], String)])
    func suggests(_ word: String, _ candidates: [String], _ expected: String) {
        #expect(suggestion(for: word, among: candidates) == expected)
        #expect(didYouMean(word, among: candidates) == "; did you mean '\(expected)'?")
    }

    @Test(arguments: [
        ("b", ["a"]),                         // one edit, but the whole word
        ("x", ["a", "b", "c"]),
        ("steps", ["run", "needs", "lane", "priority"]),
        ("enviroment", ["env"]),
        ("high", ["background", "utility", "user-initiated", "user-interactive"]),
        ("anything", []),
        ("", ["a"]),
    ] as [(String, [String])])
    func staysQuiet(_ word: String, _ candidates: [String]) {
        #expect(suggestion(for: word, among: candidates) == nil)
        #expect(didYouMean(word, among: candidates) == "")
    }

    @Test func prefersTheClosest() {
        #expect(suggestion(for: "lanes", among: ["lane", "lanes2", "lanes"]) == "lanes")
        #expect(suggestion(for: "neeeds", among: ["needs", "nee"]) == "needs")
    }

    /// The distance against a plain dynamic-programming Levenshtein with adjacent swaps, on every
    /// pair of short words over a small alphabet.
    @Test func editDistanceMatchesTheDefinition() {
        func reference(_ a: [Character], _ b: [Character]) -> Int {
            var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
            for i in 0...a.count { d[i][0] = i }
            for j in 0...b.count { d[0][j] = j }
            for i in stride(from: 1, through: a.count, by: 1) {
                for j in stride(from: 1, through: b.count, by: 1) {
                    d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                    if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
                }
            }
            return d[a.count][b.count]
        }
        var words = [""]
        for _ in 0..<3 { words += words.flatMap { word in ["a", "b", "c"].map { word + $0 } } }
        words = Array(Set(words)).sorted()
        for a in words {
            for b in words {
                let expected = reference(Array(a), Array(b))
                for limit in 1...3 {
                    let distance = editDistance(a, b, limit: limit)
                    #expect(expected <= limit ? distance == expected : distance > limit, "\(a) \(b) limit \(limit)")
                }
            }
        }
    }
}

@Suite struct ParseRepeatTests {
    private func find(_ key: String, _ first: (Int, Int), in text: String) -> String? {
        let source = SourceText(text)
        guard let found = WorkflowFile.findRepeat(
            of: key, after: SourceLocation(line: first.0, column: first.1), in: source) else { return nil }
        return "\(found.location) \(found.textColumn) \(found.length)"
    }

    @Test func blockMappings() {
        let text = """
            jobs:
              a:
                run: x
                env: {run: 1}
                # run: commented out
                needs:
                  run: nested
                run: y
              b:
                run: z
            """
        #expect(find("run", (3, 5), in: text) == "8:5 5 3")
        #expect(find("a", (2, 3), in: text) == nil)                        // 'b' is not 'a'
        #expect(find("a", (2, 3), in: text + "\n  a: again") == "11:3 3 1")
        #expect(find("run", (10, 5), in: text) == nil)                     // the mapping of 'b' has one
        // A repeat in a later mapping at the same indentation is not this mapping's.
        #expect(find("x", (1, 3), in: "- x: 1\n  y: 2\n- x: 3") == nil)
        #expect(find("x", (1, 3), in: "- x: 1\n  x: 2") == "2:3 3 1")
    }

    @Test func quotedAndUnusualKeys() {
        #expect(find("a b", (1, 1), in: "a b: 1\n\"a b\": 2") == "2:1 2 3")
        #expect(find("k", (1, 1), in: "k: 1\n'k' : 2") == "2:1 2 1")
        #expect(find("k", (1, 1), in: "k: 1\nk:2\nk:\n") == "3:1 1 1")       // 'k:2' is a word, not a key
        #expect(find("caf\u{E9}", (1, 1), in: "caf\u{E9}: 1\ncafe\u{301}: 2") == "2:1 1 5")
        #expect(find("\u{1F469}\u{200D}\u{1F4BB}", (1, 1), in: "\"\u{1F469}\u{200D}\u{1F4BB}\": 1\n\"\u{1F469}\u{200D}\u{1F4BB}\": 2") == "2:1 2 3")
        #expect(find("a", (1, 1), in: "a: 1\r\nb: 2\r\na: 3") == "3:1 1 1")
        #expect(find("a", (1, 1), in: "a: 1\rb: 2\ra: 3") == "3:1 1 1")
    }

    @Test func flowMappings() {
        #expect(find("a", (1, 8), in: "jobs: {a: 1, b: 2, a: 3}") == "1:20 20 1")
        // A key of a nested mapping is not a repeat of the outer one.
        #expect(find("a", (1, 2), in: "{a: 1, b: {a: 2}, a: 3}") == "1:19 19 1")
        #expect(find("a", (1, 2), in: "{a: 1, b: [a, {a: 2}], c: 'a, a: 4', a: 3}") == "1:38 38 1")
        // Over several lines, with a comment.
        #expect(find("a", (1, 2), in: "{a: 1, # a: no\n b: 2,\n a: 3}") == "3:2 2 1")
        // The mapping ends before a repeat.
        #expect(find("a", (1, 4), in: "- {a: 1, b: 2}\n- {c: 3, a: 4}") == nil)
        // A key right after a comment.
        #expect(find("a", (1, 2), in: "{a: 1, # first\n a: 2}") == "2:2 2 1")
        #expect(find("a", (1, 2), in: "{a: 1, \"a\": 2}") == "1:8 9 1")
    }

    @Test func neverOutOfBounds() {
        let texts = ["", "a", "a:", ":", "{", "\"", "a: 1\n", "{a: 1, a", "'a", "\"\\"]
        for text in texts {
            for line in -1...3 {
                for column in -1...6 {
                    _ = WorkflowFile.findRepeat(of: "a", after: SourceLocation(line: line, column: column), in: SourceText(text))
                    _ = WorkflowFile.findRepeat(of: "", after: SourceLocation(line: line, column: column), in: SourceText(text))
                }
            }
        }
    }

    /// Every repeated key of a mapping is reported where it repeats, however many there are.
    @Test func manyRepeatsAreAllReported() throws {
        var text = "jobs:\n"
        for index in 0..<50 { text += "  job\(index % 10): echo \(index)\n" }
        let errors = diagnostics(text)
        #expect(errors.count == 40)
        #expect(errors.allSatisfy { $0.message.hasPrefix("duplicate job 'job") })
        #expect(errors.map(\.location.line) == Array(12...51))
    }

    /// A block of 2,000 jobs pasted twice: every repeat is reported (one pass of Yams per mapping
    /// with repeats, not per repeat: this took a minute in debug, and stopped after 1,000).
    @Test func aPastedBlockIsReportedWhole() {
        let block = (0..<2000).map { "  job\($0): echo \($0)\n" }.joined()
        let errors = diagnostics("jobs:\n" + block + block)
        #expect(errors.count == 2000)
        #expect(errors.first?.description.hasPrefix("test.yml:2002:3: error: duplicate job 'job0' (first at line 2)") == true)
        #expect(errors.last?.location == SourceLocation(line: 4001, column: 3))
    }

    /// A repeat the text cannot show (written with an escape): the first key is renamed instead,
    /// so the rest of the file is still read and checked.
    @Test func aRepeatWrittenWithAnEscape() {
        let errors = diagnostics("jobs:\n  a: echo 1\n  \"\\x61\": echo 2\n  b: {run: echo, neds: [a]}\n")
        #expect(errors.map(\.location) == [SourceLocation(line: 2, column: 3), SourceLocation(line: 4, column: 18)])
        #expect(errors.first?.message.hasPrefix("duplicate job 'a'") == true)
    }

    private func diagnostics(_ text: String) -> [Diagnostic] {
        do {
            _ = try WorkflowFile.parse(text, path: "test.yml")
            return []
        } catch {
            return error.diagnostics
        }
    }
}

@Suite struct ParseSourceTextTests {
    @Test func linesBreakWhereYAMLBreaksThem() {
        #expect(SourceText("a\nb\r\nc\rd\u{85}e\u{2028}f\u{2029}g").lines.map { String(String.UnicodeScalarView($0)) }
                == ["a", "b", "c", "d", "e", "f", "g"])
        #expect(SourceText("").lines == [[]])
        #expect(SourceText("a\n").lines.count == 2)
        #expect(SourceText("\u{FEFF}ab").lines == [["a", "b"]])
        #expect(SourceText("a\u{FEFF}b").lines == [["a", "\u{FEFF}", "b"]])
    }

    @Test func byteOffsets() {
        let text = "\u{FEFF}é\r\nab\u{1F600}c\rd"
        let bytes = Array(text.utf8)
        func at(_ prefix: String) -> SourceLocation {
            SourceText.location(ofUTF8Offset: prefix.utf8.count, in: text)
        }
        #expect(at("") == SourceLocation(line: 1, column: 1))
        #expect(at("\u{FEFF}") == SourceLocation(line: 1, column: 1))
        #expect(at("\u{FEFF}é") == SourceLocation(line: 1, column: 2))
        #expect(at("\u{FEFF}é\r\n") == SourceLocation(line: 2, column: 1))
        #expect(at("\u{FEFF}é\r\nab\u{1F600}") == SourceLocation(line: 2, column: 4))
        #expect(at("\u{FEFF}é\r\nab\u{1F600}c\r") == SourceLocation(line: 3, column: 1))
        #expect(SourceText.location(ofUTF8Offset: bytes.count + 10, in: text) == SourceLocation(line: 3, column: 2))
    }
}

@Suite struct ParseCycleTests {
    /// Every directed graph on up to four jobs (self-needs included: 2^16 graphs on four): a
    /// cycle is reported exactly when one exists, each reported cycle is a real one, and there is
    /// one per strongly connected component with a cycle, starting at its earliest job.
    @Test(arguments: 1...4)
    func everySmallGraph(_ count: Int) {
        let edges = count * count
        for bits in 0..<(1 << edges) {
            var needs = [[Int]](repeating: [], count: count)
            for edge in 0..<edges where bits & (1 << edge) != 0 { needs[edge / count].append(edge % count) }
            // Reachability by brute force (Floyd–Warshall on booleans).
            var reach = [[Bool]](repeating: [Bool](repeating: false, count: count), count: count)
            for from in 0..<count { for to in needs[from] { reach[from][to] = true } }
            for middle in 0..<count {
                for from in 0..<count where reach[from][middle] {
                    for to in 0..<count where reach[middle][to] { reach[from][to] = true }
                }
            }
            let onCycle = (0..<count).filter { reach[$0][$0] }
            var components: [[Int]] = []
            for job in onCycle where !components.contains(where: { $0.contains(job) }) {
                components.append(onCycle.filter { reach[job][$0] && reach[$0][job] })
            }

            let cycles = WorkflowFile.cycles(needs: needs)
            #expect(cycles.isEmpty == onCycle.isEmpty, "graph \(needs)")
            #expect(cycles.count == components.count, "graph \(needs): \(cycles)")
            for cycle in cycles {
                let closed = zip(cycle, cycle.dropFirst() + cycle.prefix(1)).allSatisfy { needs[$0].contains($1) }
                #expect(!cycle.isEmpty && closed && Set(cycle).count == cycle.count, "graph \(needs): \(cycle)")
                let component = components.first { $0.contains(cycle[0]) } ?? []
                #expect(Set(cycle).isSubset(of: component) && cycle[0] == component.min(), "graph \(needs): \(cycle)")
            }
            #expect(cycles.map { $0[0] } == cycles.map { $0[0] }.sorted(), "graph \(needs)")
        }
    }

    /// A ring of 10,000 jobs is one cycle naming every job, with a note at each need, and no
    /// recursion deep enough to overflow the stack.
    @Test func aLongRing() throws {
        let count = 10_000
        var text = "jobs:\n"
        for index in 0..<count { text += "  j\(index): {run: echo, needs: [j\((index + 1) % count)]}\n" }
        let errors = diagnostics(text)
        try #require(errors.count == 1)
        #expect(errors[0].message.hasPrefix("dependency cycle: j0 -> j1 -> j2 -> "))
        #expect(errors[0].message.hasSuffix(" -> j9999 -> j0"))
        #expect(errors[0].notes.count == count)
        #expect(errors[0].notes.map(\.location.line) == Array(2...(count + 1)))
    }

    private func diagnostics(_ text: String) -> [Diagnostic] {
        do {
            _ = try WorkflowFile.parse(text, path: "test.yml")
            return []
        } catch {
            return error.diagnostics
        }
    }
}

@Suite struct ParseScaleTests {
    /// A 10,000-job file with needs (the graph of DESIGN.md's benchmark: up to three random
    /// earlier jobs each) parses, with every job and need. No timing is asserted.
    @Test func tenThousandJobs() throws {
        let count = 10_000
        var state: UInt64 = 42
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var text = "version: 1\nlanes: {pool: 8}\njobs:\n"
        var needCount = 0
        for index in 0..<count {
            var needs: [Int] = []
            let draws = index == 0 ? 0 : min(Int(next() % 4), index)
            for _ in 0..<draws {
                let need = Int(next() % UInt64(index))
                if !needs.contains(need) { needs.append(need) }
            }
            needCount += needs.count
            text += "  job-\(index):\n    run: echo \(index)\n"
            if !needs.isEmpty { text += "    needs: [\(needs.map { "job-\($0)" }.joined(separator: ", "))]\n" }
            if index % 3 == 0 { text += "    lane: pool\n    timeout: \(index % 60 + 1)s\n" }
        }
        let file = try WorkflowFile.parse(text, path: "big.yml")
        #expect(file.jobs.count == count)
        #expect(file.jobs.reduce(0) { $0 + $1.needs.count } == needCount)
        #expect(file.jobs[9999].name == "job-9999")
        #expect(file.jobs.filter { $0.lane == "pool" }.count == (count + 2) / 3)
    }
}

@Suite struct ParseAliasTests {
    private func parse(_ text: String) -> (file: WorkflowFile?, errors: [Diagnostic]) {
        do {
            return (try WorkflowFile.parse(text, path: "test.yml"), [])
        } catch {
            return (nil, error.diagnostics)
        }
    }

    /// Nine levels of ten aliases each (10^9 values once expanded), used as a value and as a key:
    /// refused at once. As a key this took Yams exponential time.
    @Test(arguments: ["    needs: *a8\n", "  ? *a8\n  : echo\n"])
    func aliasBombsAreRefused(_ use: String) {
        var text = "jobs:\n  a0:\n    run: &a0 x\n    env: {A: &l0 [x, x, x, x, x, x, x, x, x, x]}\n"
        for level in 1...8 {
            text += "  a\(level):\n    run: echo\n    inputs: &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        text = text.replacingOccurrences(of: "*a0", with: "*l0")
        text += "  bomb:\n    run: echo\n" + use
        let errors = parse(text).errors
        #expect(errors.contains { $0.message.contains("too large once its aliases are expanded") }, "\(errors)")
    }

    @Test func aliasesResolveToTheLatestAnchorBeforeThem() throws {
        let text = """
            jobs:
              a: {run: &c first, env: &e {X: "1"}}
              b: {run: *c, env: *e}
              c: {run: &c second}
              d: {run: *c, needs: [a, b]}
            """
        let file = try #require(parse(text).file)
        #expect(file.jobs.map(\.run) == ["first", "first", "second", "second"])
        #expect(file.jobs[1].environment == ["X": "1"])
    }

    @Test func anAliasInsideItsOwnAnchorIsUnknown() {
        let errors = parse("jobs:\n  a:\n    run: echo\n    needs: &n [*n]\n").errors
        #expect(errors.map(\.description) == ["test.yml:4:16: error: unknown alias '*n': no anchor '&n' comes before it"])
    }

    @Test func starsThatAreNotAliasesStayText() throws {
        let text = """
            jobs:
              a:
                run: ls *.txt | grep '*' && echo "[*]" *
                inputs: ["*.md", '*', '* x', src/**/*.c]
                env: {GLOB: "*", P: a*b, Q: ' *q'}
              b: |
                * a list in a block scalar
                  *indented
            """
        let file = try #require(parse(text).file)
        #expect(file.jobs[0].run == "ls *.txt | grep '*' && echo \"[*]\" *")
        #expect(file.jobs[0].inputs == ["*.md", "*", "* x", "src/**/*.c"])
        #expect(file.jobs[0].environment == ["GLOB": "*", "P": "a*b", "Q": " *q"])
        #expect(file.jobs[1].run == "* a list in a block scalar\n  *indented")
    }

    @Test func aStarWithNoNameIsReported() {
        let errors = parse("jobs:\n  a:\n    run: echo\n    needs: [* , b]\n  b: echo\n").errors
        #expect(errors.count == 1)
        #expect(errors.first?.location == SourceLocation(line: 4, column: 13))
        #expect(errors.first?.message.contains("no name follows it") == true)
    }

    /// The marker that stands for '*' while Yams reads the file is one the file does not contain.
    @Test func theMarkerIsNotInTheFile() {
        let marker = WorkflowFile.aliasMarker(avoiding: SourceText("run: \u{F8FF} \u{F0000}"))
        #expect(marker != "\u{F8FF}" && marker != "\u{F0000}")
        let file = try? WorkflowFile.parse("jobs:\n  a: {run: \"\u{F8FF} *\", needs: *x}\n", path: "t.yml")
        #expect(file == nil)
        #expect((try? WorkflowFile.parse("jobs:\n  a: \"\u{F8FF} *\"\n", path: "t.yml"))?.jobs.first?.run == "\u{F8FF} *")
    }
}
