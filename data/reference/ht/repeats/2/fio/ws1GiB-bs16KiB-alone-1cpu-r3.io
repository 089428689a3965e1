rchar: 33452010478
wchar: 13664
syscr: 2041963
syscw: 5
read_bytes: 229376
write_bytes: 8192
cancelled_write_bytes: 0
