import Foundation
import SequencerHistory
@testable import SequencerServe
import Testing
import SequencerJournal

/// The run page's dot text, laid out by the real Graphviz.
@Suite struct GraphDotTests {
    /// A job named `&lt;amp&gt;` reaches dot as `&amp;lt;amp&amp;gt;` in its label, tooltip
    /// and link, and Graphviz's SVG then shows it as named (its text is
    /// `&amp;lt;amp&amp;gt;`, which a browser shows as `&lt;amp&gt;`).
    @Test(.enabled(if: ServeOptions.findGraphviz() != nil, "needs Graphviz's dot"))
    func aNameLikeACharacterReferenceReachesDotEscapedAndShowsAsNamed() async throws {
        let workspace = try Workspace()
        let name = "&lt;amp&gt;"
        let jobs = [(name: "first", needs: [String]()), (name: name, needs: ["first"])]
        let file = try workspace.write("app.yml", Workspace.workflowText(jobs))
        _ = try await workspace.recordLibraryRun(workflow: file, jobs: jobs)
        let view = try #require(try await RunViews(history: JournalHistory(path: workspace.journal), workflowPath: nil).view(1))
        let dot = GraphView(view: view, focus: nil, whole: false).dot()
        let line = try #require(dot.split(separator: "\n").first { $0.contains("id=\"job-1\"") })
        #expect(line.contains("label=\"&amp;lt;amp&amp;gt;\""), "\(line)")
        #expect(line.contains("tooltip=\"&amp;lt;amp&amp;gt;: succeeded\""), "\(line)")

        let svg = try await Graphviz(executable: ServeOptions.findGraphviz()).svg(of: dot)
        #expect(svg.contains(">&amp;lt;amp&amp;gt;</text>"), "\(svg)")
        #expect(!svg.contains(">&lt;amp&gt;</text>"))
        #expect(svg.contains("xlink:title=\"&amp;lt;amp&amp;gt;: succeeded\""))
    }
}
