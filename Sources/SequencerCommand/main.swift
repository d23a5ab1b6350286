import Foundation
import SequencerCommandLine

// `sequencer`: the command line, whose commands live in SequencerCommandLine (so that
// `sequencer-otel` runs the same ones).
exit(await CommandLineProgram.status())
