rchar: 49180248533
wchar: 5978
syscr: 375405
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
