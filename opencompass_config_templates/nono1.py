# G-Pass@k grid for general and math models (no long chain of thought), generated in-process
# by lmdeploy TurboMind.  Settings follow the GPassK paper: n = 48 generations per question,
# G-Pass@k for k = 4, 8, 16, temperature 1.0, top-p 0.8, top-k 50, 8192 output tokens.
#
#   python save_opencompass_configs.py -tc opencompass_config_templates/nono1.py
#   opencompass opencompass_configs/<one of the files>.py -w outputs/
#
# Any variable can be overridden at generation time: --set "temperatures=[0.7,1.0]" n=16

# Generation backend: 'turbomind' runs lmdeploy inside each OpenCompass task
# (needs GPUs and `pip install lmdeploy`).
backend = 'turbomind'

# Models: Hugging Face id or local path; tp = GPUs per model (tensor parallelism);
# batch_size = prompts per lmdeploy call.  Optional name= sets the display name
# (default: the last component of path).
models = [
    dict(path='meta-llama/Llama-3.1-8B-Instruct', tp=1, batch_size=64),
    dict(path='Qwen/Qwen2.5-7B-Instruct', tp=1, batch_size=64),
    dict(path='internlm/internlm3-8b-instruct', tp=1, batch_size=64),
    dict(path='Qwen/Qwen2.5-Math-7B-Instruct', tp=1, batch_size=64),
    dict(path='Qwen/Qwen2.5-32B-Instruct', tp=2, batch_size=64),
    dict(path='meta-llama/Llama-3.3-70B-Instruct', tp=4, batch_size=64),
    dict(path='Qwen/Qwen2.5-72B-Instruct', tp=4, batch_size=64),
    dict(path='Qwen/Qwen2.5-Math-72B-Instruct', tp=4, batch_size=64),
    dict(path='mistralai/Mistral-Large-Instruct-2411', tp=8, batch_size=64),
]

# Benchmarks, by canonical name (gpassk_opencompass.catalog).  Data are found the
# OpenCompass way: DATASET_SOURCE=HF (LiveMathBench is gated: accept its terms and log in)
# or local files under $COMPASS_DATA_CACHE/data/.
benchmarks = [
    'LiveMathBench-202412',
    'LiveMathBench-Hard-202412',
    'LiveMathBench-202505',
    'MATH500-L5',
    'AIME2024-45',
    'AIME2025',
]

# Sampling: one file per temperature; n generations per question; G-Pass@k for every k <= n.
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
# Base seed: every generation gets its own seed derived from it, so the n replicas of a
# question differ while the run stays reproducible.
seed = 42
max_out_len = 8192

# Also one greedy run (temperature 0, n = 1) per model and benchmark: the Greedy column.
greedy = True

# Judge: an OpenAI-compatible server (e.g. `lmdeploy serve api_server Qwen/Qwen2.5-72B-Instruct`
# or the small jnanliu/LiveMath-Judge).  With no URL the rule-based judge is used.
eval_urls = [
    # 'http://judge-host:23333/v1',
]
eval_model_name = 'Qwen/Qwen2.5-72B-Instruct'
judge = 'auto'  # 'auto' = LLM judge when eval_urls are given, rule judge otherwise; or 'rule', 'llm', 'cascade'
