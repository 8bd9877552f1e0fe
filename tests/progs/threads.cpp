// Several std::threads allocate with new, pass half their objects to a consumer thread
// that deletes them, and delete the rest themselves. Prints a checksum that does not
// depend on scheduling.
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace
{
constexpr int kProducers = 4;
constexpr int kObjects = 50000;

struct Node {
    std::string name;
    std::vector<long> values;
};

std::mutex mu;
std::condition_variable cv;
std::deque<Node *> queue;
int producers_left = kProducers;
} // namespace

int main()
{
    std::vector<std::thread> producers;
    std::vector<long> sums(kProducers);
    for (int t = 0; t < kProducers; t++)
        producers.emplace_back([t, &sums] {
            std::vector<std::unique_ptr<Node>> kept;
            for (int k = 0; k < kObjects; k++) {
                Node *n = new Node{"node-" + std::to_string(t) + "-" + std::to_string(k),
                                   std::vector<long>(static_cast<size_t>(k % 50 + 1), k)};
                if (k % 2) {
                    std::lock_guard<std::mutex> lock(mu);
                    queue.push_back(n);
                    cv.notify_one();
                } else {
                    kept.emplace_back(n);
                }
            }
            long sum = 0;
            for (auto &n : kept)
                sum += static_cast<long>(n->name.size()) + n->values.back();
            sums[static_cast<size_t>(t)] = sum;
            std::lock_guard<std::mutex> lock(mu);
            producers_left--;
            cv.notify_one();
        });

    long consumed = 0, checksum = 0;
    std::thread consumer([&] {
        std::unique_lock<std::mutex> lock(mu);
        for (;;) {
            cv.wait(lock, [] { return !queue.empty() || producers_left == 0; });
            while (!queue.empty()) {
                Node *n = queue.front();
                queue.pop_front();
                checksum += static_cast<long>(n->values.size());
                delete n; // freed on another thread than the one that allocated it
                consumed++;
            }
            if (producers_left == 0)
                break;
        }
    });
    for (auto &p : producers)
        p.join();
    consumer.join();
    long total = 0;
    for (long s : sums)
        total += s;
    std::printf("consumed %ld checksum %ld kept-sum %ld\n", consumed, checksum, total);
    return 0;
}
