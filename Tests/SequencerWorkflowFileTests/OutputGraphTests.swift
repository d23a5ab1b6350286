import Foundation
import SequencerWorkflowFile
import Testing

@Suite struct OutputGraphTests {
    @Test func dotOfTheExampleIsExactly() throws {
        let file = try OutputFixture.file(OutputFixture.example)
        #expect(file.graph(.dot) == """
            digraph workflow {
              rankdir=LR;
              node [shape=box];
              subgraph "cluster_0" {
                label="lane network (width 2)";
                "fetch-config" [tooltip="curl -sf https://example.invalid/config > config.json"];
              }
              "splash" [tooltip="./scripts/splash.sh"];
              "whats-new" [tooltip="./scripts/whats-new.sh"];
              "splash" -> "fetch-config";
              "fetch-config" -> "whats-new";
              "splash" -> "whats-new";
            }

            """)
    }

    @Test func mermaidOfTheExampleIsExactly() throws {
        let file = try OutputFixture.file(OutputFixture.example)
        #expect(file.graph(.mermaid) == """
            flowchart LR
              subgraph lane0 ["lane network (width 2)"]
                j1["fetch-config"]
              end
              j0["splash"]
              j2["whats-new"]
              j0 --> j1
              j1 --> j2
              j0 --> j2

            """)
    }

    @Test func jsonOfASmallFileIsExactly() throws {
        let file = try OutputFixture.file("""
            lanes:
              disk: { width: 1, ordered: false }
            jobs:
              a: make a
              b:
                needs: [a]
                run: make b
                lane: disk
                priority: user-initiated
                timeout: 1500ms
                retry: 3
                env: { Z: "1", A: "2" }
                cwd: sub
                inputs: ["src/*.c"]
                outputs: [b.o]
            """)
        #expect(file.graph(.json) == """
            {
              "jobs" : [
                {
                  "attempts" : 1,
                  "cwd" : null,
                  "env" : {

                  },
                  "inputs" : [

                  ],
                  "lane" : null,
                  "name" : "a",
                  "needs" : [

                  ],
                  "outputs" : [

                  ],
                  "priority" : "utility",
                  "run" : "make a",
                  "timeout" : null
                },
                {
                  "attempts" : 3,
                  "cwd" : "sub",
                  "env" : {
                    "A" : "2",
                    "Z" : "1"
                  },
                  "inputs" : [
                    "src/*.c"
                  ],
                  "lane" : "disk",
                  "name" : "b",
                  "needs" : [
                    "a"
                  ],
                  "outputs" : [
                    "b.o"
                  ],
                  "priority" : "user-initiated",
                  "run" : "make b",
                  "timeout" : 1.5
                }
              ],
              "lanes" : [
                {
                  "name" : "disk",
                  "ordered" : false,
                  "width" : 1
                }
              ]
            }

            """)
    }

    @Test func jsonHasEveryJobInFileOrderWithEveryKey() throws {
        let file = try OutputFixture.file(OutputFixture.example)
        let graph = try OutputFixture.object(file.graph(.json))
        let jobs = try #require(graph["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["name"] as? String } == ["splash", "fetch-config", "whats-new"])
        let keys: Set = [
            "name", "run", "needs", "lane", "priority", "timeout", "attempts", "env", "cwd", "inputs", "outputs",
        ]
        for job in jobs { #expect(Set(job.keys) == keys) }
        #expect(jobs[0]["lane"] is NSNull)
        #expect(jobs[1]["lane"] as? String == "network")
        #expect(jobs[2]["needs"] as? [String] == ["fetch-config", "splash"])
        let lanes = try #require(graph["lanes"] as? [[String: Any]])
        #expect(lanes.count == 1)
        #expect(lanes.first?["name"] as? String == "network")
        #expect(lanes.first?["width"] as? Int == 2)
        #expect(lanes.first?["ordered"] as? Bool == true)
    }

    @Test func edgesGoFromTheNeededJobToTheJobThatNeedsIt() throws {
        let file = try OutputFixture.file(OutputFixture.example)
        let dot = file.graph(.dot)
        let mermaid = file.graph(.mermaid)
        let ids = Dictionary(uniqueKeysWithValues: file.jobs.enumerated().map { ($1.name, "j\($0)") })
        for job in file.jobs {
            for need in job.needs {
                #expect(dot.contains("\"\(need.name)\" -> \"\(job.name)\";"))
                #expect(mermaid.contains("\(ids[need.name] ?? "?") --> \(ids[job.name] ?? "?")\n"))
            }
        }
        #expect(!dot.contains("\"whats-new\" ->"))
    }

    @Test func namesWithQuotesBackslashesAndUnicodeAreEscaped() throws {
        let file = try OutputFixture.file(#"""
            jobs:
              'say"hi\': echo "hi"
              café.☕-2:
                needs: ['say"hi\']
                run: "printf 'a\\nb' <in >out & echo #1"
            """#)
        #expect(file.jobs.map(\.name) == [#"say"hi\"#, "café.☕-2"])

        let dot = file.graph(.dot)
        #expect(dot.contains(#"  "say\"hi\\" [tooltip="echo \"hi\""];"#))
        // `&` is written `&amp;`: dot reads `&name;` in a string as a character reference.
        #expect(dot.contains(#"  "café.☕-2" [tooltip="printf 'a\\nb' <in >out &amp; echo #1"];"#))
        #expect(dot.contains(#"  "say\"hi\\" -> "café.☕-2";"#))

        let mermaid = file.graph(.mermaid)
        #expect(mermaid.contains(#"  j0["say#34;hi\"]"#))
        #expect(mermaid.contains(#"  j1["café.☕-2"]"#))

        let jobs = try #require(try OutputFixture.object(file.graph(.json))["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["name"] as? String } == [#"say"hi\"#, "café.☕-2"])
        #expect(jobs.last?["run"] as? String == #"printf 'a\nb' <in >out & echo #1"#)
    }

    @Test func multilineCommandsStayOnOneDotLine() throws {
        let file = try OutputFixture.file("""
            jobs:
              build:
                run: |
                  make
                  make install
            """)
        let dot = file.graph(.dot)
        #expect(dot.contains(#"  "build" [tooltip="make\nmake install"];"#))
        #expect(dot.split(separator: "\n").count == 5)
    }

    @Test func mermaidLabelsHaveNoSyntaxCharacters() throws {
        let file = try OutputFixture.file("""
            lanes:
              "q<\\"&>`": 1
            jobs:
              'a"<b>&`x': { run: echo, lane: "q<\\"&>`" }
            """)
        let mermaid = file.graph(.mermaid)
        #expect(mermaid.contains(#"    j0["a#34;#60;b#62;#38;#96;x"]"#))
        #expect(mermaid.contains(#"  subgraph lane0 ["lane q#60;#34;#38;#62;#96; (width 1)"]"#))
        for line in mermaid.split(separator: "\n").dropFirst() {
            // Inside a label's quotes there are no quotes, brackets or ampersands.
            if let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""), open < close {
                let label = line[line.index(after: open)..<close]
                #expect(!label.contains { "\"<>&`".contains($0) })
            }
        }
    }

    @Test func lanesAreClustersInFileOrderAndEmptyLanesAreLeftOut() throws {
        let file = try OutputFixture.file("""
            lanes:
              idle: 3
              disk: 1
              network: { width: 4, ordered: false }
            jobs:
              upload: { run: up, lane: network }
              write: { run: w, lane: disk }
              other: o
              download: { run: down, lane: network }
            """)
        #expect(file.graph(.dot) == """
            digraph workflow {
              rankdir=LR;
              node [shape=box];
              subgraph "cluster_0" {
                label="lane disk (width 1)";
                "write" [tooltip="w"];
              }
              subgraph "cluster_1" {
                label="lane network (width 4, unordered)";
                "upload" [tooltip="up"];
                "download" [tooltip="down"];
              }
              "other" [tooltip="o"];
            }

            """)
        let mermaid = file.graph(.mermaid)
        #expect(mermaid == """
            flowchart LR
              subgraph lane0 ["lane disk (width 1)"]
                j1["write"]
              end
              subgraph lane1 ["lane network (width 4, unordered)"]
                j0["upload"]
                j3["download"]
              end
              j2["other"]

            """)
        let lanes = try #require(try OutputFixture.object(file.graph(.json))["lanes"] as? [[String: Any]])
        #expect(lanes.map { $0["name"] as? String } == ["idle", "disk", "network"])
    }

    @Test func everyFormatIsTheSameEachTime() throws {
        let env = (0..<8).map { "V\($0): \"\($0)\"" }.joined(separator: ", ")
        let jobs = (0..<30).map { "  j\($0): { run: echo \($0), env: { \(env) } }" }.joined(separator: "\n")
        let yaml = "env: { K: v }\njobs:\n" + jobs
        for format in GraphFormat.allCases {
            let first = try OutputFixture.file(yaml).graph(format)
            let second = try OutputFixture.file(yaml).graph(format)
            #expect(first == second, "\(format)")
            #expect(first.hasSuffix("}\n") || format == .mermaid)
            #expect(first.hasSuffix("\n"))
        }
        // Keys are sorted: a job's variables appear in order, whatever the dictionary's order.
        let json = try OutputFixture.file(yaml).graph(.json)
        let firstEnv = try #require(json.components(separatedBy: "\"env\" : {").dropFirst().first)
        let offsets = (0..<8).compactMap { firstEnv.range(of: "\"V\($0)\"")?.lowerBound }
        #expect(offsets.count == 8)
        #expect(offsets == offsets.sorted())
    }
}
