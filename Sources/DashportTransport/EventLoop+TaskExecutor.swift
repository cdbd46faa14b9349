// A reactor is also an executor for the tasks that serve its connections.
//
// Why: a car's worker task used to run on the cooperative pool. Every request then crossed two
// threads each way: the reactor read the bytes and resumed the worker (a futex wake of a pool
// thread), the worker queued its answer and woke the reactor (an eventfd write and an epoll
// wake) to send it. On loopback those wakes, not the work, set a request's latency: a warm
// connect to the root tabs is six round trips of them. A task created with this loop as its
// executor preference (`Task(executorPreference: connection.preferredExecutor)`) has its jobs run
// here, between socket events: bytes read are handled and the answer is sent in the same turn.
//
// The loop stays the only thread that touches a socket, and it stays fair: jobs queued in one turn
// run after that turn's socket events, and a job a turn produces (a worker yielding after its
// eight inputs, say) waits for the next. Jobs must not block: a car's worker never waits on a
// lock held across I/O, and what it awaits from the core (actors, provider calls) runs wherever
// that code runs and resumes it here.
extension EventLoop: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        submit(UnownedJob(job))
    }
}
