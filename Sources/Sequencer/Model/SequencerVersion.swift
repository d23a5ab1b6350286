/// The version of the Sequencer package: what `sequencer --version` and
/// `sequencer-serve --version` print.
///
/// ```swift
/// print("sequencer \(SequencerVersion.current)")   // sequencer 0.1.0
/// ```
public enum SequencerVersion {
    /// The version, as `MAJOR.MINOR.PATCH`. This is the one place it is written.
    public static let current = "0.1.0"
}
