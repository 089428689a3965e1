rchar: 94702250966
wchar: 13665
syscr: 722739
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
