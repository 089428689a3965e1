rchar: 31226915828
wchar: 13665
syscr: 1906153
syscw: 5
read_bytes: 937984
write_bytes: 20480
cancelled_write_bytes: 0
