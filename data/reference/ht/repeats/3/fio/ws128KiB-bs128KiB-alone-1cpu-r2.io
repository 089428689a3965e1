rchar: 99129207807
wchar: 13665
syscr: 756515
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
