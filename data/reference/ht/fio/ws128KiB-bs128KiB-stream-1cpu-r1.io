rchar: 85655268455
wchar: 13665
syscr: 653737
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
