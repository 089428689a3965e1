rchar: 100064406486
wchar: 13665
syscr: 763649
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
