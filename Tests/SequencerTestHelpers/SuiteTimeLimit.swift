public import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of every suite that has one: there to end a hang with the hung test's
    /// name, never to judge speed.
    ///
    /// Swift Testing starts every test of the run at once, on a pool of as many threads as the
    /// machine has cores. On two cores a test that takes seconds alone takes as long as the
    /// whole suite (seven minutes in CI), so a limit of five or ten minutes failed tests that
    /// were only waiting their turn. Fifteen minutes is under the test step's bound of twenty
    /// in `.ci/run`. A limit counts from its own test's start, so a hang is named before that
    /// bound kills the step only in a test that started in the step's first five minutes: in
    /// CI, with every test started at once, nearly all of them.
    public static var suiteTimeLimit: Self { .timeLimit(.minutes(15)) }
}
