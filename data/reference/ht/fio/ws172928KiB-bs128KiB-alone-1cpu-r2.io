rchar: 44943387620
wchar: 13664
syscr: 343109
syscw: 5
read_bytes: 1421312
write_bytes: 28672
cancelled_write_bytes: 0
