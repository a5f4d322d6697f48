# G-Pass@k grid for models you serve yourself behind an OpenAI-compatible URL
# (vLLM, SGLang, lmdeploy, llama.cpp, Ollama), e.g. on an air-gapped cluster:
#
#   vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000          # or: lmdeploy serve api_server ...
#   python save_opencompass_configs.py -tc opencompass_config_templates/self_served.py
#   HF_HUB_OFFLINE=1 opencompass opencompass_configs/<one of the files>.py -w outputs/
#
# Generation uses gpassk_opencompass.plugin.models.OfflineOpenAISDK: OpenCompass's OpenAISDK without
# its start-up tokenizer download (prompt lengths are estimated from characters), so nothing
# but the model URL is contacted.  A server started with --api-key reads the key from
# OPENAI_API_KEY at run time; keyless servers need nothing.
# Any variable can be overridden at generation time: --set model_url=http://gpu7:8000/v1

backend = 'openai-local'

# Base URL of the server (ending in /v1); a model's own url= overrides it.
model_url = 'http://127.0.0.1:8000/v1'

# The software serving model_url: it decides under which names top_k and the repetition penalty
# are sent (a model's own server= overrides it).  A parameter the server has no name for is
# refused when the configs are generated, so a run's name (..._k50_rp1.0_...) is always true.
#   server        top_k   repetition_penalty sent as
#   'vllm'        top_k   repetition_penalty
#   'sglang'      top_k   repetition_penalty
#   'lmdeploy'    top_k   repetition_penalty
#   'llama.cpp'   top_k   repeat_penalty
#   'ollama'      --      --                 (its /v1 endpoint takes temperature and top_p only)
#   'openai'      --      --                 (the OpenAI API: temperature and top_p only)
#   None          --      --                 (unknown server: standard parameters only)
server = 'vllm'

# Models: path = the model name the server reports (GET /v1/models); batch_size = requests
# in flight per task.  Optional name= sets the display name.
models = [
    dict(path='Qwen/Qwen2.5-7B-Instruct', batch_size=64),
]

# Benchmarks, by canonical name (gpassk_opencompass.catalog).
benchmarks = [
    'LiveMathBench-202412',
    'LiveMathBench-Hard-202412',
    'LiveMathBench-202505',
    'MATH500-L5',
    'AIME2024-45',
    'AIME2025',
]

# Sampling: sent with every request (top_k and repetition_penalty under the names `server` reads).
# No seed is sent: the server draws a fresh seed per request, so the n replicas of a question
# differ (one fixed seed for all of them would make them identical; the generator refuses it).
temperatures = [1.0]
k = [4, 8, 16]
n = 48
# Curtailed sampling (docs/generator.md, "Curtailed grids"): e.g. dict(first=16, rule='all-wrong') draws 16
# generations per question, then the other n - 16 only for questions with one of the 16 right; every metric
# stays exactly unbiased. `gpassk grid run` draws the second round and combines the two. None: n for every question.
curtail = None
top_p = 0.8
top_k = 50
repetition_penalty = 1.0
seed = None
max_out_len = 8192
# Prompt + answer budget per request; None = max_out_len + 4096 (the answer is clipped to fit).
max_seq_len = None
query_per_second = 16
retry = 3

# Also one greedy run (temperature 0, n = 1) per model and benchmark: the Greedy column.
greedy = True

# Judge: an OpenAI-compatible server; with no URL the rule-based judge is used.
eval_urls = [
    # 'http://127.0.0.1:23333/v1',
]
eval_model_name = 'Qwen/Qwen2.5-72B-Instruct'
judge = 'auto'
