rchar: 83957754816
wchar: 13665
syscr: 640765
syscw: 5
read_bytes: 73728
write_bytes: 8192
cancelled_write_bytes: 0
