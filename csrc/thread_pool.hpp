// cule: a small persistent thread pool for the CPU backend (host code only; never on
// the emulation step path).  parallel_for splits [0, n) into one contiguous chunk per
// worker; the caller's thread takes a chunk too.
//
// A process forked from the one that made the pool (multiprocessing's "fork" start
// method, a DataLoader worker ...) has none of its worker threads, and its mutex may
// have been copied locked: there parallel_for runs every chunk on the calling thread
// and the destructor leaves the workers alone.  Results do not depend on the threads.
#pragma once
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cule {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads) : num_threads_(num_threads < 1 ? 1 : num_threads), owner_(getpid()) {
    for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this, i] { worker(i); });
  }
  ~ThreadPool() {
    if (getpid() != owner_) {
      // A forked child: the threads are not there to join (and joining or detaching
      // them is undefined); their handles are left behind, never to be destroyed.
      new std::vector<std::thread>(std::move(workers_));
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
      ++generation_;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }
  int size() const { return num_threads_; }

  // Runs fn(begin, end) over chunks of [0, n); returns when every chunk is done.
  void parallel_for(int n, const std::function<void(int, int)>& fn) {
    if (n <= 0) return;
    int used = num_threads_ < n ? num_threads_ : n;
    if (used == 1 || getpid() != owner_) { fn(0, n); return; }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &fn;
      n_ = n;
      used_ = used;
      pending_ = used - 1;
      ++generation_;
    }
    cv_.notify_all();
    run_chunk(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void run_chunk(int i) {
    int begin = (int)((long long)n_ * i / used_);
    int end = (int)((long long)n_ * (i + 1) / used_);
    if (begin < end) (*job_)(begin, end);
  }
  void worker(int i) {
    unsigned long long seen = 0;
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (quit_) return;
      if (i >= used_) continue;
      lock.unlock();
      run_chunk(i);
      lock.lock();
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }

  int num_threads_;
  pid_t owner_;   // the process whose threads these are
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int, int)>* job_ = nullptr;
  int n_ = 0, used_ = 0, pending_ = 0;
  unsigned long long generation_ = 0;
  bool quit_ = false;
};

}  // namespace cule
