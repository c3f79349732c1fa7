package io.adreport.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The measurement settings every JMH benchmark of this module shares (JMH reads them from the
 * superclass): operations per second, one fork, 3 warm-up and 5 measured iterations of 2 s, one
 * state object for the whole run. One owner, so that their numbers in docs/BENCHMARKS.md were
 * taken alike. A subclass names its own {@code @Threads}; {@code benchmarks/run-jmh.sh} options
 * ({@code -t}, {@code -wi}, {@code -i}, ...) override any of them for one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public abstract class ThroughputBenchmark {
}
