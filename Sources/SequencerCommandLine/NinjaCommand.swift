import ArgumentParser
import Foundation
import SequencerNinja
import SequencerRunner

/// `sequencer ninja`: listed here for `--help`; `SequencerCLI.main` hands its arguments to
/// ninja mode before argument-parser reads them, since ninja's flags are not ours.
struct NinjaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ninja",
        abstract: "Run a build.ninja (CMake, Meson) as ninja would, deciding what is up to date by content.",
        discussion: """
            Takes ninja's command line (-C, -f, -j, -k, -n, -v, -d, -t, -w, targets) and prints \
            ninja's status lines and messages. The same binary started under the name `ninja` \
            (a symbolic link) is ninja: cmake -G Ninja -DCMAKE_MAKE_PROGRAM=/path/to/ninja.
            """)

    @Argument(parsing: .captureForPassthrough, help: "ninja's arguments.")
    var arguments: [String] = []

    func run() async throws {
        let code = await NinjaMain.run(arguments: arguments, openCache: CacheStores.open)
        if code != 0 { throw ExitCode(code) }
    }
}
