# DLPack capsules that a producer got wrong, built by hand with ctypes: every one is
# refused with a geblas error naming the argument, never used as memory, and freed
# through its deleter; a well-formed one is taken in place.
import ctypes

import numpy as np
import pytest

import geblas


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAME = b"dltensor"  # a capsule keeps a pointer to its name: this bytes object lives on

_FLOAT32 = (2, 32, 1)
_INT64 = (0, 64, 1)


class Producer:
    """A "dltensor" capsule over `memory` (a NumPy array kept alive here) describing
    whatever shape, strides and device the test asks for; `freed` counts its deleter's
    calls."""

    def __init__(self, memory, shape, strides=None, dtype=_FLOAT32, device=(1, 0), ndim=None,
                 null_shape=False, null_data=False):
        self.memory = memory
        self.freed = 0
        self.shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self.deleter = _Deleter(self._free)
        t = _DLTensor()
        t.data = None if null_data else memory.ctypes.data
        t.device = _DLDevice(*device)
        t.ndim = len(shape) if ndim is None else ndim
        t.dtype = _DLDataType(*dtype)
        t.shape = None if null_shape else ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = None if strides is None else ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = 0
        self.managed = _DLManagedTensor(t, None, self.deleter)

    def _free(self, _):
        self.freed += 1

    def capsule(self):
        return _capsule_new(ctypes.addressof(self.managed), _NAME, None)


def _memory():
    return np.arange(16, dtype=np.float32)  # 64 bytes: all that any case below owns


def test_a_well_formed_capsule_is_taken_in_place():
    # The harness itself: a correct 4 x 3 float32 tensor (row-major, null strides) over
    # the producer's memory is used in place and gives the product NumPy gives.
    mem = _memory()
    p = Producer(mem, (4, 3))
    assert geblas._geblas._dense_view(p.capsule()) == mem.ctypes.data
    A = geblas.Matrix.from_coo([0, 1, 1], [0, 2, 3], [1.0, 2.0, -1.0], (2, 4), dtype="float32")
    q = Producer(mem, (4, 3), strides=(3, 1))
    got = np.asarray(geblas.mxm(A, q.capsule()))
    np.testing.assert_array_equal(got, A.to_dense() @ mem[:12].reshape(4, 3))
    assert p.freed == 1 and q.freed == 1


# (shape, strides, dtype, message): each describes far more memory than any producer has;
# the sizes overflow 64-bit products (shape x shape, shape x stride, x itemsize).
OVERFLOWING = [
    ((2**31 - 1, 2**31 - 1), None, _FLOAT32, "2\\^62 bytes"),  # each dimension legal, the bytes 2^64 - 2^34
    ((2**40, 2**40), None, _FLOAT32, "2\\^62 bytes"),  # the compact strides overflow int64
    ((4, 2**62), (2**62, 1), _INT64, "2\\^62 bytes"),  # stride x shape beyond 2^64
    ((2**61,), None, _INT64, "2\\^62 bytes"),  # 2^64 bytes: zero after wrapping
]


@pytest.mark.parametrize("shape, strides, dtype, message", OVERFLOWING)
def test_sizes_that_overflow_are_refused(shape, strides, dtype, message):
    p = Producer(_memory(), shape, strides, dtype)
    with pytest.raises(ValueError, match=message) as e:
        geblas._geblas._dense_view(p.capsule())
    assert isinstance(e.value, geblas.InvalidValue) and "geblas: x " in str(e.value)
    assert p.freed == 1  # refused, and handed back to its producer
    if len(shape) == 2 and shape[0] <= 2**31 - 1:
        A = geblas.Matrix(2, shape[0], dtype="float32" if dtype == _FLOAT32 else "int64")
        q = Producer(_memory(), shape, strides, dtype)
        with pytest.raises(ValueError, match=message) as e:
            geblas.mxm(A, q.capsule())
        assert isinstance(e.value, geblas.InvalidValue) and "geblas: B " in str(e.value)
        assert q.freed == 1


@pytest.mark.parametrize("kw, message", [
    (dict(ndim=-1), "-1 dimensions"),
    (dict(ndim=1000), "1000 dimensions"),
    (dict(null_shape=True), "without a shape"),
    (dict(null_data=True), "address 0"),
    (dict(device=(2, -1)), "CUDA device -1"),
    (dict(device=(7, 0)), "device type 7"),
])
def test_corrupt_tensors_are_refused(kw, message):
    p = Producer(_memory(), (4, 3), **kw)
    with pytest.raises(ValueError, match=message) as e:
        geblas._geblas._dense_view(p.capsule())
    assert isinstance(e.value, geblas.InvalidValue) and "geblas: x " in str(e.value)
    assert p.freed == 1


def test_negative_dimensions_and_foreign_dtypes_are_refused():
    p = Producer(_memory(), (-3, 4))
    with pytest.raises(ValueError, match="negative dimension") as e:
        geblas._geblas._dense_view(p.capsule())
    assert isinstance(e.value, geblas.InvalidValue)
    q = Producer(_memory(), (4, 3), dtype=(5, 64, 1))  # complex64
    with pytest.raises(TypeError, match="DLPack dtype") as e:
        geblas._geblas._dense_view(q.capsule())
    assert isinstance(e.value, geblas.DomainMismatch)
    assert p.freed == 1 and q.freed == 1
